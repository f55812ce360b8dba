import type { Volume } from '../../schemas.js';
import { VOLUME_SOURCE_KEYS } from '../../schemas.js';
import { dns1123Label } from '../names.js';
import type { Issues } from './issues.js';
import { validateResourceQuantity } from './resources.js';

const HOST_PATH_TYPES = ['', 'DirectoryOrCreate', 'Directory', 'FileOrCreate', 'File', 'Socket', 'CharDevice', 'BlockDevice'] as const;

export function validateVolumes(volumes: Volume[], issues: Issues): Map<string, Volume> {
  const byName = new Map<string, Volume>();
  volumes.forEach((v, i) => {
    const p = `spec.volumes[${i}]`;
    if (v.name === '') issues.required(`${p}.name`);
    else {
      issues.check(`${p}.name`, v.name, dns1123Label(v.name));
      if (byName.has(v.name)) issues.duplicate(`${p}.name`, v.name);
      else byName.set(v.name, v);
    }
    const sources = VOLUME_SOURCE_KEYS.filter((key) => v[key] !== undefined);
    if (sources.length === 0) issues.required(p, 'must specify a volume type');
    else if (sources.length > 1) issues.forbidden(`${p}.${sources[1] ?? ''}`, 'may not specify more than 1 volume type');
    if (v.hostPath !== undefined) {
      if (v.hostPath.path === '') issues.required(`${p}.hostPath.path`);
      issues.enumValue(`${p}.hostPath.type`, v.hostPath.type, HOST_PATH_TYPES);
    }
    if (v.emptyDir?.sizeLimit !== undefined) validateResourceQuantity(`${p}.emptyDir.sizeLimit`, v.emptyDir.sizeLimit, issues);
    if (v.persistentVolumeClaim !== undefined && v.persistentVolumeClaim.claimName === '') {
      issues.required(`${p}.persistentVolumeClaim.claimName`);
    }
    if (v.csi !== undefined && v.csi.driver === '') issues.required(`${p}.csi.driver`);
    for (const [key, mode] of [
      ['configMap', v.configMap?.defaultMode],
      ['secret', v.secret?.defaultMode],
      ['downwardAPI', v.downwardAPI?.defaultMode],
      ['projected', v.projected?.defaultMode],
    ] as const) {
      if (mode !== undefined && (mode < 0 || mode > 0o777)) {
        issues.invalid(`${p}.${key}.defaultMode`, mode, 'must be a number between 0 and 0777 (octal), both inclusive');
      }
    }
  });
  return byName;
}
