// Reads the JUnit report ginkgo writes (--junit-report) into the spec results the conformance
// runner keeps: one entry per spec that ran or was skipped, the suite's set-up nodes left out.
import fs from 'node:fs';

const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(text) {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, code) => {
    if (code[0] === '#') {
      const n = code[1] === 'x' || code[1] === 'X' ? parseInt(code.slice(2), 16) : parseInt(code.slice(1), 10);
      return Number.isFinite(n) ? String.fromCodePoint(n) : whole;
    }
    return ENTITIES[code] ?? whole;
  });
}

function attributes(tag) {
  const out = {};
  for (const m of tag.matchAll(/([\w:-]+)="([^"]*)"/g)) out[m[1]] = decode(m[2]);
  return out;
}

/**
 * A spec's name without the label list ginkgo appends (" [sig-node, NodeConformance]"): the e2e
 * specs carry their labels in their text too. Idempotent.
 */
export function specName(name) {
  return name.replace(/ \[[^[\]]*, [^[\]]*\]$/, '');
}

/**
 * @param {string} xml a ginkgo v2 JUnit report
 * @returns {{ name: string, state: 'passed'|'failed'|'skipped', seconds: number, message?: string }[]}
 */
export function parseJunit(xml) {
  const specs = [];
  for (const m of xml.matchAll(/<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const attrs = attributes(m[1]);
    const body = m[3] ?? '';
    let name = attrs.name ?? '';
    // Ginkgo names spec nodes "[It] <full text>"; suite-level nodes ([BeforeSuite]…) are not specs.
    if (!name.startsWith('[It] ')) continue;
    name = specName(name.slice(5).trim());
    const failure = /<(failure|error)\b([^>]*)>([\s\S]*?)<\/\1>|<(failure|error)\b([^>]*)\/>/.exec(body);
    const skipped = /<skipped\b([^>]*)\/?>/.exec(body);
    const spec = { name, state: 'passed', seconds: Number(attrs.time ?? 0) };
    if (failure) {
      spec.state = 'failed';
      const failAttrs = attributes(failure[2] ?? failure[5] ?? '');
      spec.message = (failAttrs.message || decode(failure[3] ?? '')).trim().slice(0, 2000);
    } else if (skipped) {
      spec.state = 'skipped';
      const message = attributes(skipped[1]).message;
      if (message) spec.message = message.slice(0, 500);
    }
    specs.push(spec);
  }
  return specs;
}

export function readJunit(file) {
  return parseJunit(fs.readFileSync(file, 'utf8'));
}
