export const PACKAGE_NAME = '@kubelet-ts/eviction-manager';
