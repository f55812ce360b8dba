import { packageConfig } from '../../tsup.shared.mjs';

export default packageConfig({ entry: { index: 'src/index.ts' } });
