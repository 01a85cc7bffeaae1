import { packageBuild } from '../../tsup.base.js';

export default packageBuild(['index', 'fastify', 'express', 'node', 'metrics']);
