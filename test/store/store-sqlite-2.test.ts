// The other half of the store contract on SQLite in a file (see store-sqlite.test.ts and backends.ts).
import { sqliteFile } from './backends.ts';
import { storeContract } from './contract.ts';

storeContract('sqlite (file)', sqliteFile, [3, 4]);
