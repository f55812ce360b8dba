import { DBusError } from './errors.js';

/** The system bus when DBUS_SYSTEM_BUS_ADDRESS is not set (the specification's default). */
export const DEFAULT_SYSTEM_BUS_ADDRESS = 'unix:path=/run/dbus/system_bus_socket';

/** Where to connect: a unix socket path, or a Linux abstract socket name. */
export type UnixSocketAddress = { path: string } | { abstract: string };

/**
 * The first unix-socket address of a D-Bus server address list (`unix:path=/x;tcp:host=…`), with
 * the specification's value escaping (`%2f`). Other transports are not supported: INVALID_ADDRESS.
 */
export function parseBusAddress(address: string): UnixSocketAddress {
  for (const entry of address.split(';')) {
    if (entry === '') continue;
    const colon = entry.indexOf(':');
    if (colon < 0) throw new DBusError('INVALID_ADDRESS', `D-Bus address ${JSON.stringify(entry)} has no transport`);
    if (entry.slice(0, colon) !== 'unix') continue;
    const params = new Map<string, string>();
    for (const pair of entry.slice(colon + 1).split(',')) {
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      params.set(pair.slice(0, eq), unescape(pair.slice(eq + 1), entry));
    }
    const path = params.get('path');
    if (path !== undefined && path !== '') return { path };
    const abstract = params.get('abstract');
    if (abstract !== undefined && abstract !== '') return { abstract };
  }
  throw new DBusError('INVALID_ADDRESS', `D-Bus address ${JSON.stringify(address)} names no unix socket (path= or abstract=)`);
}

/** The system bus address of this environment: DBUS_SYSTEM_BUS_ADDRESS, else the default. */
export function systemBusAddress(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const value = env['DBUS_SYSTEM_BUS_ADDRESS'];
  return value !== undefined && value !== '' ? value : DEFAULT_SYSTEM_BUS_ADDRESS;
}

function unescape(value: string, entry: string): string {
  try {
    return decodeURIComponent(value);
  } catch (err) {
    throw new DBusError('INVALID_ADDRESS', `D-Bus address ${JSON.stringify(entry)}: bad escape`, { cause: err });
  }
}
