// Original file: pluginregistration/v1/api.proto


export interface PluginInfo {
  'type'?: (string);
  'name'?: (string);
  'endpoint'?: (string);
  'supportedVersions'?: (string)[];
}

export interface PluginInfo__Output {
  'type': (string);
  'name': (string);
  'endpoint': (string);
  'supportedVersions': (string)[];
}
