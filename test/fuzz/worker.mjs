// Worker thread of the fuzz pool (pool.ts): TypeScript through tsx, then worker-main.ts.
import { register } from 'tsx/esm/api';
register();
await import('./worker-main.ts');
