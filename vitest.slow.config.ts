// The slow tier: only the tests tagged `slow` (see vitest.config.ts). `npm run test:slow`.
import { suiteConfig } from './vitest.config.js';

export default suiteConfig('slow');
