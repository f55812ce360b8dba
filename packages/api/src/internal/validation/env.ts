import type { EnvVar } from '../../schemas.js';
import { envVarName } from '../names.js';
import type { Issues } from './issues.js';

export function validateEnv(env: EnvVar, path: string, issues: Issues): void {
  if (env.name === '') issues.required(`${path}.name`);
  else issues.check(`${path}.name`, env.name, envVarName(env.name));
  const from = env.valueFrom;
  if (from === undefined) return;
  const set = (['fieldRef', 'resourceFieldRef', 'configMapKeyRef', 'secretKeyRef'] as const).filter((k) => from[k] !== undefined);
  if (set.length === 0) {
    issues.invalid(`${path}.valueFrom`, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`');
  } else if (set.length > 1) {
    issues.invalid(`${path}.valueFrom`, '', 'may not have more than one field specified at a time');
  }
  if (env.value !== undefined && env.value !== '') {
    issues.invalid(`${path}.valueFrom`, '', 'may not be specified when `value` is not empty');
  }
  if (from.fieldRef !== undefined && from.fieldRef.fieldPath === '') issues.required(`${path}.valueFrom.fieldRef.fieldPath`);
  if (from.resourceFieldRef !== undefined && from.resourceFieldRef.resource === '') {
    issues.required(`${path}.valueFrom.resourceFieldRef.resource`);
  }
  if (from.configMapKeyRef !== undefined && from.configMapKeyRef.key === '') issues.required(`${path}.valueFrom.configMapKeyRef.key`);
  if (from.secretKeyRef !== undefined && from.secretKeyRef.key === '') issues.required(`${path}.valueFrom.secretKeyRef.key`);
}
