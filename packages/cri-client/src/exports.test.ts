import fs from 'node:fs';
import path from 'node:path';
import { serviceMethods } from './internal/loader.js';
import { IMAGE_SERVICE_METHODS, RUNTIME_SERVICE_METHODS, STREAMING_METHODS } from './services.js';
import { FakeImageService, FakeRuntimeService } from './testing/index.js';

describe('public surface', () => {
  it('declares one method per RPC of the CRI descriptor, streams included', () => {
    expect([...RUNTIME_SERVICE_METHODS].sort()).toEqual([...serviceMethods('RuntimeService').keys()].sort());
    expect([...IMAGE_SERVICE_METHODS].sort()).toEqual([...serviceMethods('ImageService').keys()].sort());
    const streaming = [...serviceMethods('RuntimeService'), ...serviceMethods('ImageService')]
      .filter(([, d]) => d.responseStream)
      .map(([n]) => n);
    expect([...STREAMING_METHODS].sort()).toEqual(streaming.sort());
  });

  it('the fakes implement every method', () => {
    const runtime = new FakeRuntimeService();
    const image = new FakeImageService();
    for (const name of RUNTIME_SERVICE_METHODS) expect(typeof runtime[name]).toBe('function');
    for (const name of IMAGE_SERVICE_METHODS) expect(typeof image[name]).toBe('function');
  });

  it('src/index.ts re-exports every generated message and enum name', () => {
    const messages = fs.readFileSync(path.join(__dirname, 'gen/messages.ts'), 'utf8');
    const index = fs.readFileSync(path.join(__dirname, 'index.ts'), 'utf8');
    const names = new Set<string>();
    for (const m of messages.matchAll(/^export type \{ (.*) \} from/gm)) {
      for (const part of (m[1] ?? '').split(', ')) names.add(part.includes(' as ') ? (part.split(' as ')[1] ?? part) : part);
    }
    for (const m of messages.matchAll(/^export const (\w+)/gm)) names.add(m[1] ?? '');
    const missing = [...names].filter((name) => !new RegExp(`^\\s+${name},$`, 'm').test(index));
    expect(missing).toEqual([]);
    expect(names.size).toBeGreaterThan(180);
  });
});
