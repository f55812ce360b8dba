// Regenerates src/gen/ from proto/pluginregistration/v1/api.proto (run: npm run generate).
// Deterministic: relative paths only, sorted output, no timestamps.
//  - src/gen/pluginregistration/*.ts, src/gen/api.ts: types from proto-loader-gen-types
//  - src/gen/descriptor.ts: the protobufjs JSON descriptor, loaded at run time with proto-loader's fromJSON
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateProto } from '../../../scripts/proto-codegen.mjs';

const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Types and the run-time descriptor; the loader options in src/internal/registration-loader.ts match the generator's.
generateProto({
  pkgDir,
  protoFile: 'pluginregistration/v1/api.proto',
  descriptorExport: 'registrationDescriptor',
  descriptorComment: "The protobufjs JSON form of the kubelet plugin registration API v1 (Root#toJSON), for @grpc/proto-loader's fromJSON.",
});
