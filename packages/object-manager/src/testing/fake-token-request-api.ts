import type { TokenRequest } from '@kubelet-ts/api';
import type { Clock } from '@kubelet-ts/common';
import type { TokenRequestApi } from '../token-manager.js';

export interface FakeTokenRequestCall {
  namespace: string;
  serviceAccount: string;
  tokenRequest: TokenRequest;
}

/**
 * A TokenRequest API that issues `token-<n>` valid for the requested expirationSeconds (default
 * 3600) from `clock.now()`, records every call, and throws the errors queued with `failNext`.
 */
export class FakeTokenRequestApi implements TokenRequestApi {
  readonly calls: FakeTokenRequestCall[] = [];
  readonly #clock: Pick<Clock, 'now'>;
  readonly #errors: unknown[] = [];

  constructor(clock: Pick<Clock, 'now'>) {
    this.#clock = clock;
  }

  /** The next `times` calls throw `error`. */
  failNext(error: unknown, times = 1): void {
    for (let i = 0; i < times; i++) this.#errors.push(error);
  }

  async createToken(namespace: string, serviceAccount: string, tokenRequest: TokenRequest): Promise<TokenRequest> {
    this.calls.push({ namespace, serviceAccount, tokenRequest: structuredClone(tokenRequest) });
    await Promise.resolve();
    if (this.#errors.length > 0) throw this.#errors.shift();
    const seconds = tokenRequest.spec.expirationSeconds ?? 3600;
    return {
      ...structuredClone(tokenRequest),
      spec: { ...structuredClone(tokenRequest.spec), expirationSeconds: seconds },
      status: { token: `token-${this.calls.length}`, expirationTimestamp: new Date(this.#clock.now() + seconds * 1000).toISOString() },
    };
  }
}
