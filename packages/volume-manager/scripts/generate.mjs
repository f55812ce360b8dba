// Regenerates src/gen/ from proto/csi/v1/csi.proto (run: npm run generate).
// Deterministic: relative paths only, sorted output, no timestamps.
//  - src/gen/csi/v1/*.ts, src/gen/csi.ts: types from proto-loader-gen-types
//  - src/gen/descriptor.ts: the protobufjs JSON descriptor, loaded at run time with proto-loader's fromJSON
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateProto } from '../../../scripts/proto-codegen.mjs';

const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Types and the run-time descriptor; the loader options in src/internal/csi-loader.ts match the generator's.
generateProto({
  pkgDir,
  protoFile: 'csi/v1/csi.proto',
  descriptorExport: 'csiDescriptor',
  descriptorComment: "The protobufjs JSON form of the CSI v1 Node service (Root#toJSON), for @grpc/proto-loader's fromJSON.",
});
