import { apiStatusOf, isAlreadyExists, isConflict, isForbidden, isNotFound, isResourceExpired, StatusSchema } from './index.js';

const failure = (statusCode: number, reason = '') => Object.assign(new Error('x'), { statusCode, reason });

describe('API status', () => {
  it('tells AlreadyExists from Conflict by reason, both being 409', () => {
    expect(isAlreadyExists(failure(409, 'AlreadyExists'))).toBe(true);
    expect(isConflict(failure(409, 'AlreadyExists'))).toBe(false);
    expect(isConflict(failure(409, 'Conflict'))).toBe(true);
    expect(isAlreadyExists(failure(409, 'Conflict'))).toBe(false);
    // A bare 409 without a reason is neither: guessing would turn a conflict into a create.
    expect(isAlreadyExists(failure(409))).toBe(false);
    expect(isConflict(failure(409))).toBe(false);
  });

  it('reads not found and forbidden by reason or by an unambiguous code', () => {
    expect(isNotFound(failure(404))).toBe(true);
    expect(isNotFound(failure(404, 'NotFound'))).toBe(true);
    expect(isNotFound(failure(500, 'InternalError'))).toBe(false);
    expect(isForbidden(failure(403))).toBe(true);
  });

  it('sees an expired resource version as 410 or reason Expired', () => {
    expect(isResourceExpired(failure(410))).toBe(true);
    expect(isResourceExpired(failure(200, 'Expired'))).toBe(true);
    expect(isResourceExpired(failure(500))).toBe(false);
  });

  it('answers nothing for errors that are not API failures', () => {
    expect(apiStatusOf(new Error('socket hang up'))).toBeUndefined();
    expect(apiStatusOf('404')).toBeUndefined();
    expect(isNotFound(undefined)).toBe(false);
  });

  it('parses a watch ERROR Status', () => {
    const status = StatusSchema.parse({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'Expired',
      code: 410,
      message: 'too old resource version: 90 (100)',
    });
    expect(status.code).toBe(410);
  });
});
