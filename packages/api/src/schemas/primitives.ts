// The zod building blocks of the core/v1 schemas (not exported from the package).
import { z } from 'zod';

export const str = z.string();
export const int = z.number().int();
export const bool = z.boolean();
export const stringMap = z.record(z.string(), z.string());
