import type { ObjectMeta } from '../../schemas.js';
import { dns1123Label, dns1123Subdomain, labelValue, qualifiedName } from '../names.js';
import type { Issues } from './issues.js';

const MAX_ANNOTATIONS_BYTES = 256 * 1024;

export function validateMeta(meta: ObjectMeta, issues: Issues): void {
  if (meta.name === '') issues.required('metadata.name', 'name or generateName is required');
  else issues.check('metadata.name', meta.name, dns1123Subdomain(meta.name));
  if (meta.namespace === '') issues.required('metadata.namespace');
  else issues.check('metadata.namespace', meta.namespace, dns1123Label(meta.namespace));
  for (const [key, value] of Object.entries(meta.labels ?? {})) {
    issues.check('metadata.labels', key, qualifiedName(key));
    issues.check(`metadata.labels[${key}]`, value, labelValue(value));
  }
  let annotationBytes = 0;
  for (const [key, value] of Object.entries(meta.annotations ?? {})) {
    issues.check('metadata.annotations', key, qualifiedName(key.toLowerCase()));
    annotationBytes += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  if (annotationBytes > MAX_ANNOTATIONS_BYTES) {
    issues.list.push({ path: 'metadata.annotations', reason: `Too long: must have at most ${MAX_ANNOTATIONS_BYTES} bytes` });
  }
}
