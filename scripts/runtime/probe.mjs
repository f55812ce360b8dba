#!/usr/bin/env node
// Small checks for scripts/test-runtime.sh that need no npm dependency, so the
// test environment can start before `npm install` has run:
//
//   probe.mjs cri-ready <socket> [timeout-seconds]   wait for RuntimeReady and NetworkReady
//   probe.mjs cri-status <socket>                    print version and runtime conditions
//   probe.mjs cri-teardown <socket>                  stop and remove every pod sandbox (and any
//                                                    container left) through the CRI
//
// The CRI calls are plain gRPC over HTTP/2 on the unix socket with hand-encoded
// protobuf (only a few string/bool fields of runtime.v1 are used), so this does
// not depend on the project's generated CRI client.
import * as http2 from 'node:http2';
import * as net from 'node:net';

const RUNTIME = '/runtime.v1.RuntimeService';
const RPC_TIMEOUT_MS = 10_000;

// --- protobuf wire format (just what these messages need) ---
function varint(value) {
  const bytes = [];
  let v = value >>> 0;
  while (v > 0x7f) {
    bytes.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  bytes.push(v);
  return Buffer.from(bytes);
}

function stringField(field, text) {
  const data = Buffer.from(text, 'utf8');
  return Buffer.concat([varint((field << 3) | 2), varint(data.length), data]);
}

// Decodes one message level into field number -> list of values (Buffer for
// length-delimited fields, number for varints); nested messages decode on demand.
function decode(buf) {
  const fields = new Map();
  let pos = 0;
  const readVarint = () => {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (pos >= buf.length) throw new Error('truncated varint');
      const byte = buf[pos++];
      result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7;
    }
  };
  while (pos < buf.length) {
    const key = readVarint();
    const field = Math.floor(key / 8);
    const wire = key & 7;
    let value;
    if (wire === 0) value = readVarint();
    else if (wire === 2) {
      const length = readVarint();
      value = buf.subarray(pos, pos + length);
      pos += length;
    } else if (wire === 1) {
      value = buf.subarray(pos, pos + 8);
      pos += 8;
    } else if (wire === 5) {
      value = buf.subarray(pos, pos + 4);
      pos += 4;
    } else throw new Error(`unsupported wire type ${wire}`);
    if (!fields.has(field)) fields.set(field, []);
    fields.get(field).push(value);
  }
  return fields;
}

const str = (fields, n) => (fields.get(n)?.[0] ?? Buffer.alloc(0)).toString('utf8');
const bool = (fields, n) => (fields.get(n)?.[0] ?? 0) === 1;
const list = (fields, n) => (fields.get(n) ?? []).map((b) => decode(b));

// --- gRPC unary call over a unix socket ---
function unary(session, method, request, timeoutMs = RPC_TIMEOUT_MS) {
  return new Promise((resolve, reject) => {
    const stream = session.request({
      ':method': 'POST',
      ':path': method,
      'content-type': 'application/grpc',
      te: 'trailers',
      'grpc-timeout': `${timeoutMs}m`,
    });
    const chunks = [];
    let status;
    let message = '';
    const timer = setTimeout(() => {
      stream.close(http2.constants.NGHTTP2_CANCEL);
      reject(new Error(`${method}: no answer within ${timeoutMs} ms`));
    }, timeoutMs + 1000);
    const takeStatus = (headers) => {
      if (headers['grpc-status'] !== undefined) {
        status = Number(headers['grpc-status']);
        message = decodeURIComponent(String(headers['grpc-message'] ?? ''));
      }
    };
    stream.on('response', takeStatus);
    stream.on('trailers', takeStatus);
    stream.on('data', (chunk) => chunks.push(chunk));
    stream.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    stream.on('close', () => {
      clearTimeout(timer);
      if (status === undefined) return reject(new Error(`${method}: stream closed without a gRPC status`));
      if (status !== 0) {
        const err = new Error(`${method}: gRPC status ${status}: ${message}`);
        err.grpcCode = status;
        return reject(err);
      }
      const body = Buffer.concat(chunks);
      if (body.length < 5) return resolve(Buffer.alloc(0));
      resolve(body.subarray(5, 5 + body.readUInt32BE(1)));
    });
    const frame = Buffer.alloc(5);
    frame.writeUInt32BE(request.length, 1);
    stream.end(Buffer.concat([frame, request]));
  });
}

function connect(socketPath) {
  const session = http2.connect('http://localhost', { createConnection: () => net.connect(socketPath) });
  session.on('error', () => {}); // surfaced through the calls
  return session;
}

async function criStatus(socketPath) {
  const session = connect(socketPath);
  try {
    const version = decode(await unary(session, `${RUNTIME}/Version`, stringField(1, 'v1')));
    const status = decode(await unary(session, `${RUNTIME}/Status`, Buffer.alloc(0)));
    const runtimeStatus = status.get(1)?.[0];
    const conditions = runtimeStatus ? list(decode(runtimeStatus), 1) : [];
    return {
      runtime: `${str(version, 2)} ${str(version, 3)} (CRI ${str(version, 4)})`,
      conditions: conditions.map((c) => ({ type: str(c, 1), status: bool(c, 2), reason: str(c, 3), message: str(c, 4) })),
    };
  } finally {
    session.close();
  }
}

const isReady = (conditions, type) => conditions.some((c) => c.type === type && c.status);

async function criReady(socketPath, timeoutSeconds) {
  const deadline = Date.now() + timeoutSeconds * 1000;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    try {
      const { runtime, conditions } = await criStatus(socketPath);
      if (isReady(conditions, 'RuntimeReady') && isReady(conditions, 'NetworkReady')) {
        process.stdout.write(`${runtime}: RuntimeReady, NetworkReady\n`);
        return 0;
      }
      last = conditions.map((c) => `${c.type}=${c.status}${c.reason ? ` (${c.reason}: ${c.message})` : ''}`).join(', ');
    } catch (err) {
      last = err.message;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  process.stderr.write(`CRI at ${socketPath} not ready after ${timeoutSeconds} s: ${last}\n`);
  return 1;
}

async function criTeardown(socketPath) {
  const session = connect(socketPath);
  let failures = 0;
  try {
    const sandboxes = list(decode(await unary(session, `${RUNTIME}/ListPodSandbox`, Buffer.alloc(0))), 1);
    for (const sandbox of sandboxes) {
      const id = str(sandbox, 1);
      const name = str(decode(sandbox.get(2)?.[0] ?? Buffer.alloc(0)), 1);
      try {
        // StopPodSandbox kills its containers and runs the CNI DEL (IP, iptables, veth).
        await unary(session, `${RUNTIME}/StopPodSandbox`, stringField(1, id), 60_000);
        await unary(session, `${RUNTIME}/RemovePodSandbox`, stringField(1, id), 60_000);
        process.stdout.write(`removed pod sandbox ${id.slice(0, 13)} ${name}\n`);
      } catch (err) {
        failures++;
        process.stderr.write(`pod sandbox ${id.slice(0, 13)} ${name}: ${err.message}\n`);
      }
    }
    const containers = list(decode(await unary(session, `${RUNTIME}/ListContainers`, Buffer.alloc(0))), 1);
    for (const container of containers) {
      const id = str(container, 1);
      try {
        await unary(session, `${RUNTIME}/RemoveContainer`, stringField(1, id), 60_000);
        process.stdout.write(`removed container ${id.slice(0, 13)}\n`);
      } catch (err) {
        failures++;
        process.stderr.write(`container ${id.slice(0, 13)}: ${err.message}\n`);
      }
    }
  } finally {
    session.close();
  }
  return failures === 0 ? 0 : 1;
}

async function main() {
  const [command, arg, ...rest] = process.argv.slice(2);
  if (!command || !arg) {
    process.stderr.write('usage: probe.mjs cri-ready|cri-status|cri-teardown <socket>\n');
    return 2;
  }
  switch (command) {
    case 'cri-ready':
      return criReady(arg, Number(rest[0] ?? 60));
    case 'cri-status': {
      const { runtime, conditions } = await criStatus(arg);
      process.stdout.write(`${runtime}\n`);
      for (const c of conditions) {
        process.stdout.write(`  ${c.type}=${c.status}${c.reason ? ` ${c.reason}: ${c.message}` : ''}\n`);
      }
      return isReady(conditions, 'RuntimeReady') && isReady(conditions, 'NetworkReady') ? 0 : 1;
    }
    case 'cri-teardown':
      return criTeardown(arg);
    default:
      process.stderr.write(`probe.mjs: unknown command ${command}\n`);
      return 2;
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`probe.mjs: ${err.message}\n`);
    process.exit(1);
  },
);
