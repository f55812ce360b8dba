// Regenerates src/gen/ from proto/runtime/v1/api.proto (run: npm run generate).
// Deterministic: relative paths only, sorted output, no timestamps.
//  - src/gen/runtime/v1/*.ts, src/gen/api.ts: types from proto-loader-gen-types
//  - src/gen/descriptor.ts: the protobufjs JSON descriptor that the client loads with proto-loader's fromJSON
//  - src/gen/messages.ts: the public message aliases (see README "Types")
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { generateProto } from '../../../scripts/proto-codegen.mjs';

const require = createRequire(import.meta.url);
const protobuf = require('protobufjs');

const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Types and the run-time descriptor; the loader options in src/internal/loader.ts match the generator's.
const { root, genDir, header } = generateProto({
  pkgDir,
  protoFile: 'runtime/v1/api.proto',
  descriptorExport: 'criDescriptor',
  descriptorComment: "The protobufjs JSON form of the CRI v1 proto (Root#toJSON), for @grpc/proto-loader's fromJSON.",
});

// 3. Public aliases: what a caller sends is exported in input form, what it only receives in output form;
//    messages that travel both ways are exported in input form plus `<Name>Output`.
const pkg = root.lookup('runtime.v1');
const sent = new Set();
const received = new Set();
const enums = new Set();
const fileName = (t) => t.fullName.replace(/^\.runtime\.v1\./, '').replace(/\./g, '_');
function walk(type, into) {
  const name = fileName(type);
  if (type instanceof protobuf.Enum) {
    enums.add(name);
    return;
  }
  if (into.has(name)) return;
  into.add(name);
  for (const field of type.fieldsArray) if (field.resolvedType) walk(field.resolvedType, into);
}
for (const service of pkg.nestedArray.filter((n) => n instanceof protobuf.Service)) {
  for (const method of service.methodsArray) {
    walk(method.resolvedRequestType, sent);
    walk(method.resolvedResponseType, received);
  }
}
const lines = [header];
for (const name of [...new Set([...sent, ...received])].sort()) {
  const from = `./runtime/v1/${name}.js`;
  if (sent.has(name) && received.has(name)) {
    lines.push(`export type { ${name}, ${name}__Output as ${name}Output } from '${from}';`);
  } else if (sent.has(name)) {
    lines.push(`export type { ${name} } from '${from}';`);
  } else {
    lines.push(`export type { ${name}__Output as ${name} } from '${from}';`);
  }
}
lines.push('');
lines.push('// Enums: a constant object (name -> name) and, under the same name, the union of the names.');
for (const name of [...enums].sort()) {
  // A nested enum (SecurityProfile.ProfileType) lives in its parent's file under its full name.
  const [parent, child] = name.split('_');
  const from = `./runtime/v1/${parent}.js`;
  const symbol = child === undefined ? name : `_runtime_v1_${name}`;
  const exported = child === undefined ? name : `${parent}${child.replace(/^Profile/, '')}`;
  lines.push(`import { ${symbol} as ${exported}Values } from '${from}';`);
  lines.push(`export const ${exported} = ${exported}Values;`);
  lines.push(`export type ${exported} = (typeof ${exported}Values)[keyof typeof ${exported}Values];`);
}
fs.writeFileSync(path.join(genDir, 'messages.ts'), `${lines.join('\n')}\n`);
