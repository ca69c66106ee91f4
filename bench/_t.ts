import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient, Prisma } from '../src/generated/prisma/client.js';
const p = new PrismaClient({ adapter: new PrismaPg({ connectionString: 'postgresql://postgres@127.0.0.1:5432/wsa_prof' }) });
const rows = await p.$queryRaw<any[]>`SELECT id AS "id", created_at AS "createdAt", input, attempts, labels FROM runs LIMIT 1`;
console.log(rows[0], typeof rows[0].input, rows[0].createdAt instanceof Date);
console.log(Object.keys((Prisma as any).dmmf ?? {}));
await p.$disconnect();
