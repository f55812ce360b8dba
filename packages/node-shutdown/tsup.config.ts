import { packageConfig } from '../../tsup.shared.mjs';

export default packageConfig();
