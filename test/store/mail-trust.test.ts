// The senders' trust part of the store contract on both engines (SQLite file and PostgreSQL).
import { describe } from 'node:test';
import { postgres, sqliteFile } from './backends.ts';
import { mailTrustContract } from './contract-mail-trust.ts';
import { PG_SKIP, testDatabaseUrl } from './pg-schema.ts';

void describe('mail trust: sqlite', () => mailTrustContract(sqliteFile));
if (testDatabaseUrl) void describe('mail trust: postgres', () => mailTrustContract(postgres(testDatabaseUrl!)));
else void describe('mail trust: postgres', { skip: PG_SKIP }, () => {});
