import { goJson, goJsonString, goJsonStringMap } from './go-json.js';

describe('Go JSON strings', () => {
  it('escapes as encoding/json does by default', () => {
    expect(goJsonString('a<b>&c')).toBe('"a\\u003cb\\u003e\\u0026c"');
    expect(goJsonString('q"\\\n\t\b\f\r\u0001')).toBe('"q\\"\\\\\\n\\t\\b\\f\\r\\u0001"');
    expect(goJsonString('\u2028\u2029é😀')).toBe('"\\u2028\\u2029é😀"');
    expect(goJsonString('\ud800x')).toBe('"\\ufffdx"');
  });

  it('marshals a string map with keys in byte order', () => {
    expect(goJsonStringMap({ name: 'n', image: 'i' })).toBe('{"image":"i","name":"n"}');
  });

  it('marshals ordered objects as given, dropping undefined members', () => {
    expect(goJson({ exec: { command: ['sh', '-c', 'a && b'] }, httpGet: undefined, n: 1, ok: true, x: null })).toBe(
      '{"exec":{"command":["sh","-c","a \\u0026\\u0026 b"]},"n":1,"ok":true,"x":null}',
    );
  });
});
