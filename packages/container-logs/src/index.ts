export const PACKAGE_NAME = '@kubelet-ts/container-logs';
