// Regenerates src/gen/ from proto/csi/v1/csi.proto and proto/pluginregistration/v1/api.proto
// (run: npm run generate). Deterministic: relative paths only, sorted output, no timestamps.
//  - src/gen/csi/v1/*.ts, src/gen/csi.ts: CSI types from proto-loader-gen-types
//  - src/gen/descriptor.ts: the CSI protobufjs JSON descriptor, loaded at run time with proto-loader's fromJSON
//  - src/gen/registration/**: the same for the kubelet plugin registration API (types under
//    registration/pluginregistration/, descriptor in registration/descriptor.ts)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateProto } from '../../../scripts/proto-codegen.mjs';

const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// The shared generator owns one src/gen per call (it empties it first): generate the registration
// API in a scratch package dir, then move its tree under src/gen/registration/.
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'vm-gen-'));
try {
  generateProto({
    pkgDir: scratch,
    protoFile: 'pluginregistration/v1/api.proto',
    descriptorExport: 'registrationDescriptor',
    descriptorComment: "The protobufjs JSON form of the kubelet plugin registration API v1 (Root#toJSON), for @grpc/proto-loader's fromJSON.",
  });
  // Types and the run-time descriptor; the loader options in src/internal/csi-loader.ts match the generator's.
  generateProto({
    pkgDir,
    protoFile: 'csi/v1/csi.proto',
    descriptorExport: 'csiDescriptor',
    descriptorComment: "The protobufjs JSON form of the CSI v1 Node service (Root#toJSON), for @grpc/proto-loader's fromJSON.",
  });
  fs.cpSync(path.join(scratch, 'src/gen'), path.join(pkgDir, 'src/gen/registration'), { recursive: true });
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
