// Quarter 2 of the store contract on PostgreSQL (see store-postgres.test.ts and backends.ts).
import { postgresContract } from './backends.ts';

postgresContract(2);
