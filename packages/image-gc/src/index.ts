export const PACKAGE_NAME = '@kubelet-ts/image-gc';
