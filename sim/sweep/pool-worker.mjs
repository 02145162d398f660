// A worker process of the sweep pool: loads the TypeScript batch runner through tsx.
import { register } from 'tsx/esm/api';

register();
const { runBatchTask } = await import('./batch-task.ts');
export default runBatchTask;
