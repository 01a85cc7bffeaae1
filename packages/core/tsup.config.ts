import { packageBuild } from '../../tsup.base.js';

export default packageBuild(['index', 'schemas', 'signatures/registry']);
