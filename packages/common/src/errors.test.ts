import type * as ErrorsModule from './errors.js';
import { UsageError, defineError, errorMessage } from './index.js';

type WidgetCode = 'BROKEN' | 'MISSING';

class WidgetError extends defineError<WidgetCode>('WidgetError', { defaultCode: 'BROKEN' }) {}

/** A package error with an extra field, as ConfigError's issues or CriError's grpcCode. */
class GadgetError extends defineError<'BAD' | 'WORSE'>('GadgetError', { defaultCode: 'BAD' }) {
  readonly part: string;
  constructor(code: 'BAD' | 'WORSE', message: string, options: { cause?: unknown; part?: string } = {}) {
    super(code, message, options);
    this.part = options.part ?? '';
  }
}

describe('defineError', () => {
  it('makes an Error with a name, a stable code, a message and the cause', () => {
    const cause = new Error('ENOENT');
    const err = new WidgetError('MISSING', 'no widget', { cause });
    expect(err).toBeInstanceOf(Error);
    expect(err).toBeInstanceOf(WidgetError);
    expect(err).toMatchObject({ name: 'WidgetError', code: 'MISSING', message: 'no widget', cause });
    expect(WidgetError.name).toBe('WidgetError');
    expect(String(err)).toBe('WidgetError: no widget');
    expect(err.stack).toContain('no widget');
    expect('cause' in new WidgetError('BROKEN', 'x')).toBe(false);
  });

  it("from() keeps its own errors, and wraps anything else with a code (or the default) and a message (or the cause's)", () => {
    const own = new WidgetError('MISSING', 'no widget');
    expect(WidgetError.from(own, 'BROKEN', 'ignored')).toBe(own);

    const plain = new Error('disk full');
    const wrapped = WidgetError.from(plain);
    expect(wrapped).toBeInstanceOf(WidgetError);
    expect(wrapped).toMatchObject({ code: 'BROKEN', message: 'disk full', cause: plain });

    const withContext = WidgetError.from(plain, 'MISSING', 'cannot read /widget');
    expect(withContext).toMatchObject({ code: 'MISSING', message: 'cannot read /widget', cause: plain });
    expect(errorMessage(withContext)).toBe('cannot read /widget: disk full');

    expect(WidgetError.from('boom')).toMatchObject({ code: 'BROKEN', message: 'boom', cause: 'boom' });
  });

  it('is() checks the class and, when given, the code', () => {
    const err = new WidgetError('MISSING', 'x');
    expect(WidgetError.is(err)).toBe(true);
    expect(WidgetError.is(err, 'MISSING')).toBe(true);
    expect(WidgetError.is(err, 'BROKEN')).toBe(false);
    expect(WidgetError.is(new Error('x'))).toBe(false);
    expect(WidgetError.is(undefined)).toBe(false);
    expect(WidgetError.is({ code: 'MISSING', name: 'WidgetError' })).toBe(false);
    expect(GadgetError.is(err)).toBe(false);
    expect(err instanceof GadgetError).toBe(false);
  });

  it('subclasses keep their extra fields, and from() builds the subclass', () => {
    const err = new GadgetError('WORSE', 'x', { part: 'wheel' });
    expect(err.part).toBe('wheel');
    const wrapped = GadgetError.from(new Error('y'));
    expect(wrapped).toBeInstanceOf(GadgetError);
    expect(wrapped.part).toBe('');
    expect(GadgetError.is(err, 'WORSE') && err.part).toBe('wheel');
  });

  it('recognises the errors of a second class of the same name: two calls of defineError', () => {
    class WidgetErrorCopy extends defineError<WidgetCode>('WidgetError', { defaultCode: 'BROKEN' }) {}
    const fromCopy = new WidgetErrorCopy('MISSING', 'x');

    expect(fromCopy instanceof WidgetError).toBe(true);
    expect(new WidgetError('BROKEN', 'y') instanceof WidgetErrorCopy).toBe(true);
    expect(WidgetError.is(fromCopy, 'MISSING')).toBe(true);
    expect(WidgetError.from(fromCopy)).toBe(fromCopy);
    expect(() => {
      throw fromCopy;
    }).toThrow(WidgetError);
  });

  it('recognises the errors of a separately loaded copy of the module (two bundles of one package)', () => {
    let copy: typeof ErrorsModule | undefined;
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      copy = require('./errors.js') as typeof ErrorsModule;
    });
    if (copy === undefined) throw new Error('the module did not load');
    expect(copy.defineError).not.toBe(defineError);

    const OtherCopy = copy.defineError<WidgetCode>('WidgetError', { defaultCode: 'BROKEN' });
    const err = new OtherCopy('MISSING', 'from the other copy');
    expect(err instanceof WidgetError).toBe(true);
    expect(WidgetError.is(err, 'MISSING')).toBe(true);
    expect(new WidgetError('BROKEN', 'x') instanceof OtherCopy).toBe(true);
    // A different name stays a different error, also across copies.
    const Other = copy.defineError<WidgetCode>('OtherError', { defaultCode: 'BROKEN' });
    expect(new Other('BROKEN', 'x') instanceof WidgetError).toBe(false);
  });
});

describe('UsageError', () => {
  it('is the one error of a command line that does not parse, for every CLI', () => {
    const err = new UsageError('USAGE', 'unknown flag --bogus');
    expect(err).toMatchObject({ name: 'UsageError', code: 'USAGE', message: 'unknown flag --bogus' });
    expect(UsageError.is(err)).toBe(true);
    expect(UsageError.is(new Error('unknown flag --bogus'))).toBe(false);
  });
});
