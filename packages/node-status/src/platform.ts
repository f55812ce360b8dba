/** Go's GOARCH for Node's `process.arch` (what upstream reports as the node's architecture). */
const GO_ARCH: Readonly<Record<string, string>> = {
  x64: 'amd64',
  ia32: '386',
  arm: 'arm',
  arm64: 'arm64',
  ppc64: 'ppc64le',
  s390x: 's390x',
  riscv64: 'riscv64',
  loong64: 'loong64',
  mips: 'mips',
  mipsel: 'mipsle',
};

export function goArch(arch: string = process.arch): string {
  return GO_ARCH[arch] ?? arch;
}
