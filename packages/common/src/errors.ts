/**
 * The brand every defined error carries on its prototype: the error's name. `Symbol.for` makes
 * it one symbol for the whole process, so two copies of a package (ESM next to CJS, the `.` and
 * `./testing` bundles, two versions in node_modules) recognise each other's errors.
 */
const BRAND: unique symbol = Symbol.for('@kubelet-ts/common.error') as never;

export interface ErrorCauseOptions {
  cause?: unknown;
}

/** An instance of a class made by `defineError`: a stable `code`, a message, and the `cause` when there is one. */
export interface CodedError<Code extends string> extends Error {
  readonly code: Code;
}

/** The class `defineError` returns; packages extend it to add fields (`issues`, `grpcCode`…). */
export interface CodedErrorClass<Code extends string> {
  new (code: Code, message: string, options?: ErrorCauseOptions): CodedError<Code>;
  readonly prototype: CodedError<Code>;
  /** The code `from` uses when it is given none. */
  readonly defaultCode: Code;
  /**
   * Wraps anything thrown, keeping an error of this class (from any copy of the package) as it is.
   * `message` says what failed and defaults to the thrown value's own message; the thrown value
   * becomes the `cause` (common's `errorMessage` prints the chain).
   */
  from<T extends CodedErrorClass<Code>>(this: T, err: unknown, code?: Code, message?: string): InstanceType<T>;
  /** True for an error of this class, also from another copy of the package, with `code` when given. */
  is<T extends CodedErrorClass<Code>>(this: T, err: unknown, code?: Code): err is InstanceType<T>;
  /** Makes `instanceof` duck-typed by brand, as `is` is (the connect-es ConnectError pattern). */
  [Symbol.hasInstance](value: unknown): boolean;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Makes the one error class of a package: `class CgroupError extends defineError<CgroupErrorCode>('CgroupError', { defaultCode: 'IO' }) {}`.
 * `name` must be the class name; it is also the brand, so it must be unique among kubelet-ts errors.
 */
export function defineError<Code extends string>(name: string, options: { defaultCode: NoInfer<Code> }): CodedErrorClass<Code> {
  class DefinedError extends Error {
    static readonly defaultCode = options.defaultCode;
    readonly code: Code;

    constructor(code: Code, message: string, options?: ErrorCauseOptions) {
      super(message, options?.cause === undefined ? undefined : { cause: options.cause });
      // An own property, as a class field would make it: loggers and test matchers see it.
      this.name = name;
      this.code = code;
    }

    static from(err: unknown, code?: Code, message?: string): DefinedError {
      if (this.is(err)) return err;
      return new this(code ?? this.defaultCode, message ?? messageOf(err), { cause: err });
    }

    static is(err: unknown, code?: Code): err is DefinedError {
      return err instanceof this && (code === undefined || err.code === code);
    }

    static override [Symbol.hasInstance](value: unknown): boolean {
      if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
      if (typeof value !== 'object' || value === null) return false;
      const brand = (this.prototype as unknown as Record<symbol, unknown>)[BRAND];
      return (value as Record<symbol, unknown>)[BRAND] === brand && typeof (value as { code?: unknown }).code === 'string';
    }
  }
  Object.defineProperty(DefinedError.prototype, BRAND, { value: name });
  Object.defineProperty(DefinedError, 'name', { value: name });
  return DefinedError as unknown as CodedErrorClass<Code>;
}

export type CommonErrorCode =
  /** A string that is not a Go duration, or a number that cannot be formatted as one. */
  'INVALID_DURATION';

/** The one error class of @kubelet-ts/common. */
export class CommonError extends defineError<CommonErrorCode>('CommonError', { defaultCode: 'INVALID_DURATION' }) {}

/**
 * A command line that does not parse (unknown flag, missing value): the CLIs of kubelet-ts
 * (crictl-ts, kubelet-ts-logs) print its message with a hint and exit with status 2.
 */
export class UsageError extends defineError<'USAGE'>('UsageError', { defaultCode: 'USAGE' }) {}
