import { EventSchema, generateEventName } from './event.js';

describe('Event schema', () => {
  it('parses a core/v1 Event as the API server returns it, keeping fields it does not list', () => {
    const event = EventSchema.parse({
      kind: 'Event',
      apiVersion: 'v1',
      metadata: { name: 'web.1839e3187cc326ed', namespace: 'default', resourceVersion: '42', uid: 'u-1' },
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'web', uid: 'p-1', apiVersion: 'v1', fieldPath: 'spec.containers{app}' },
      reason: 'Pulled',
      message: 'Successfully pulled image "nginx"',
      source: { component: 'kubelet', host: 'node-a' },
      firstTimestamp: '2026-01-01T00:00:00Z',
      lastTimestamp: '2026-01-01T00:00:05Z',
      count: 2,
      type: 'Normal',
      eventTime: null,
      reportingComponent: 'kubelet',
      reportingInstance: 'node-a',
      series: { count: 1 },
    });
    expect(event.metadata.resourceVersion).toBe('42');
    expect(event.involvedObject.fieldPath).toBe('spec.containers{app}');
    expect(event.eventTime).toBeNull();
    expect(event['series']).toEqual({ count: 1 });
  });

  it('names the field a bad event gets wrong', () => {
    const result = EventSchema.safeParse({ metadata: { name: 'x', namespace: 'default' }, involvedObject: {}, count: '2' });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.'))).toEqual(['count']);
  });
});

describe('generateEventName', () => {
  it('is the object name and the unix nanoseconds in hex', () => {
    expect(generateEventName('nginx', 1_767_225_600_123_456_789n)).toBe('nginx.18867251f555cd15');
  });

  it('falls back to a UUID when the name would not be a DNS subdomain', () => {
    expect(generateEventName('Bad_Name', 1n, () => 'uuid-1')).toBe('uuid-1');
    expect(generateEventName('a'.repeat(252), 1n, () => 'uuid-2')).toBe('uuid-2');
    expect(generateEventName('Bad_Name', 1n)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });
});
