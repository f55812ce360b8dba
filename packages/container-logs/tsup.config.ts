import { packageConfig } from '../../tsup.shared.mjs';

export default packageConfig({
  entry: { index: 'src/index.ts', testing: 'src/testing/index.ts', cli: 'src/cli/main.ts' },
});
