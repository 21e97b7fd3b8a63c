/**
 * The tables `db copy` moves by a TableSpec (copy/generic.ts), in the order their foreign keys need. A migration that
 * adds tables adds their specs here; the copy refuses a source holding rows in a table no step copies, and a
 * source table with a column its spec does not list, so a table or column forgotten here stops the copy instead of
 * being lost. test/store/copy.test.ts compares these specs with both engines' schemas column by column.
 *
 * A spec is used only when its table exists in the source: an installation from before a migration simply has
 * nothing of it to copy (the target gets the whole schema of this release first).
 */
import type { TableSpec } from './generic.ts';

/** Migration 003: the e-mail channel. */
export const MAIL_TABLES: readonly TableSpec[] = [
  {
    table: 'mail_messages',
    what: 'mail message (same id, other customer or bytes)',
    key: ['id'],
    columns: ['id', 'customer_id', 'source', 'envelope_from', 'recipients', 'message_id', 'raw', 'sha256', 'remote',
      'imap_account_id', 'imap_uidvalidity', 'imap_uid', 'received_at', 'state', 'done_at', 'result', 'attempts', 'helo', 'auth'],
    // The claim of the instance deriving it: no instance of the target holds anything yet.
    targetOnly: ['claimed_by', 'claimed_until'],
    same: ['customer_id', 'sha256'],
    // received → done is the only change, and done is final.
    update: {
      set: 'state = excluded.state, done_at = excluded.done_at, result = excluded.result, attempts = excluded.attempts, auth = excluded.auth, claimed_until = NULL',
      // Finished since the last pass; or released from a hold since (only a release makes a finished message received).
      where: `(mail_messages.state = 'received' AND excluded.state = 'done') OR (mail_messages.state = 'done' AND excluded.state = 'received')`,
    },
  },
  {
    table: 'mail_parts',
    what: 'mail part (same message and position, another submission)',
    key: ['mail_id', 'idx'],
    columns: ['mail_id', 'idx', 'submission_id'],
    same: ['submission_id'],
  },
  {
    table: 'mail_replies',
    what: 'reply (same id, another message or recipient)',
    key: ['id'],
    columns: ['id', 'mail_id', 'customer_id', 'recipient', 'subject', 'raw', 'state', 'attempts', 'next_attempt_at', 'last_error',
      'created_at', 'sent_at', 'kind', 'order_id'],
    same: ['mail_id', 'customer_id', 'recipient', 'subject'],
    // The sender holding it: no instance of the target holds anything yet.
    targetOnly: ['claimed_by'],
    // The outbox's progress follows the source, but a reply the target has sent is never made pending again.
    update: {
      set: `state = excluded.state, attempts = excluded.attempts, next_attempt_at = excluded.next_attempt_at,
        last_error = excluded.last_error, sent_at = excluded.sent_at`,
      where: `mail_replies.state <> 'sent' AND (mail_replies.state, mail_replies.attempts, mail_replies.next_attempt_at,
        mail_replies.last_error, mail_replies.sent_at) IS DISTINCT FROM (excluded.state, excluded.attempts,
        excluded.next_attempt_at, excluded.last_error, excluded.sent_at)`,
    },
  },
  {
    table: 'imap_accounts',
    what: 'IMAP mailbox (same id, another customer)',
    key: ['id'],
    // password_enc is copied as stored: it stays sealed under the same INTAKE_SECRET_KEY.
    columns: ['id', 'customer_id', 'host', 'port', 'tls', 'username', 'password_enc', 'folder', 'processed_folder', 'uidvalidity',
      'last_uid', 'last_error', 'last_checked_at', 'created_at', 'updated_at', 'authserv_id'],
    bool: ['tls'],
    same: ['customer_id'],
    update: {
      set: `host = excluded.host, port = excluded.port, tls = excluded.tls, username = excluded.username,
        password_enc = excluded.password_enc, folder = excluded.folder, processed_folder = excluded.processed_folder,
        uidvalidity = excluded.uidvalidity, last_uid = excluded.last_uid, last_error = excluded.last_error,
        last_checked_at = excluded.last_checked_at, updated_at = excluded.updated_at, authserv_id = excluded.authserv_id`,
      where: `(imap_accounts.host, imap_accounts.port, imap_accounts.tls, imap_accounts.username, imap_accounts.password_enc,
        imap_accounts.folder, imap_accounts.processed_folder, imap_accounts.uidvalidity, imap_accounts.last_uid,
        imap_accounts.last_error, imap_accounts.last_checked_at, imap_accounts.updated_at, imap_accounts.authserv_id) IS DISTINCT FROM (excluded.host,
        excluded.port, excluded.tls, excluded.username, excluded.password_enc, excluded.folder, excluded.processed_folder,
        excluded.uidvalidity, excluded.last_uid, excluded.last_error, excluded.last_checked_at, excluded.updated_at, excluded.authserv_id)`,
    },
    // A mailbox removed in the source since the last pass must not go on being watched from the target.
    mirror: { parent: 'customers', parentKey: 'id', column: 'customer_id' },
  },
];

/** Migration 004: production sites and connectors (their keys are rows of credentials, copied before). */
export const CONNECTOR_TABLES: readonly TableSpec[] = [
  {
    table: 'sites',
    what: 'site',
    key: ['code'],
    columns: ['code', 'name', 'created_at'],
    same: [],
    update: { set: 'name = excluded.name', where: 'sites.name IS DISTINCT FROM excluded.name' },
  },
  {
    table: 'connectors',
    what: 'connector (same id, another customer)',
    key: ['id'],
    columns: ['id', 'customer_id', 'name', 'format', 'credential_id', 'allow_ips', 'mapping', 'created_at', 'revoked_at',
      'all_customers', 'product_key'],
    bool: ['all_customers'],
    same: ['customer_id'],
    // A rotation changes credential_id, a revocation sets revoked_at, `mapping set` replaces the mapping, `product-key`
    // the product key. JSON is compared as the text that was written (PostgreSQL's json keeps it as given).
    update: {
      set: `name = excluded.name, format = excluded.format, credential_id = excluded.credential_id, allow_ips = excluded.allow_ips,
        mapping = excluded.mapping, revoked_at = excluded.revoked_at, all_customers = excluded.all_customers, product_key = excluded.product_key`,
      where: `(connectors.name, connectors.format, connectors.credential_id, connectors.allow_ips::text, connectors.mapping,
        connectors.revoked_at, connectors.all_customers, connectors.product_key) IS DISTINCT FROM (excluded.name, excluded.format,
        excluded.credential_id, excluded.allow_ips::text, excluded.mapping, excluded.revoked_at, excluded.all_customers, excluded.product_key)`,
    },
  },
  {
    table: 'connector_sites',
    what: 'connector site binding',
    key: ['connector_id', 'site_code'],
    columns: ['connector_id', 'site_code'],
    same: [],
  },
  {
    table: 'connector_lookup',
    what: 'connector lookup row',
    key: ['connector_id', 'product_key'],
    columns: ['connector_id', 'product_key', 'codice_articolo', 'unita_misura'],
    same: [],
    update: {
      set: 'codice_articolo = excluded.codice_articolo, unita_misura = excluded.unita_misura',
      where: `(connector_lookup.codice_articolo, connector_lookup.unita_misura) IS DISTINCT FROM (excluded.codice_articolo, excluded.unita_misura)`,
    },
    // `connector lookup import` replaces a connector's whole table: keys dropped in the source go in the target too.
    mirror: { parent: 'connectors', parentKey: 'id', column: 'connector_id' },
  },
];

/** Migration 034: the superseded versions of orders and the requests production decides. */
export const LIFECYCLE_TABLES: readonly TableSpec[] = [
  {
    table: 'order_versions',
    what: 'order version (same order and version, another submission)',
    key: ['order_id', 'versione'],
    columns: ['order_id', 'versione', 'made_at', 'channel', 'action', 'submission_id', 'content'],
    // A superseded version never changes.
    same: ['submission_id'],
  },
  {
    table: 'order_requests',
    what: 'order request (same id, another order)',
    key: ['id'],
    columns: ['id', 'order_id', 'customer_id', 'kind', 'state', 'reason', 'note', 'content', 'content_hash', 'base_version',
      'submission_id', 'channel', 'created_at', 'decided_at'],
    same: ['order_id'],
    // Waiting → decided is the only change, and a decision is final.
    update: {
      set: 'state = excluded.state, note = excluded.note, decided_at = excluded.decided_at',
      where: `order_requests.state = 'in_attesa' AND excluded.state <> 'in_attesa'`,
    },
  },
];

/** Migration 009: the customers a connector serves, its customer table, and what tickets said, kept with orders. */
export const CIP4_TABLES: readonly TableSpec[] = [
  {
    table: 'connector_customers',
    what: 'connector customer binding',
    key: ['connector_id', 'customer_id'],
    columns: ['connector_id', 'customer_id'],
    same: [],
    mirror: { parent: 'connectors', parentKey: 'id', column: 'connector_id' },
  },
  {
    table: 'connector_customer_ids',
    what: 'connector customer table row',
    key: ['connector_id', 'external_id'],
    columns: ['connector_id', 'external_id', 'customer_id'],
    same: [],
    update: { set: 'customer_id = excluded.customer_id', where: 'connector_customer_ids.customer_id IS DISTINCT FROM excluded.customer_id' },
    // `connector customers import` replaces a connector's whole table: ids dropped in the source go in the target too.
    mirror: { parent: 'connectors', parentKey: 'id', column: 'connector_id' },
  },
  {
    table: 'order_tickets',
    what: 'ticket details (same order, other details)',
    key: ['order_id'],
    columns: ['order_id', 'details'],
    // An order keeps the first details it got (saveOrderTickets): different ones under the same order are a clash.
    same: ['details'],
  },
];

/** Migration 007: integration keys and production history (events have their own step, copy/outbox.ts). */
export const OUTBOX_TABLES: readonly TableSpec[] = [
  {
    table: 'integrations',
    what: 'integration (same id, another name)',
    key: ['id'],
    columns: ['id', 'name', 'key_id', 'secret_hash', 'created_at', 'rotated_at', 'revoked_at'],
    same: ['name'],
    // A rotation replaces the key, a revocation sets revoked_at.
    update: {
      set: 'key_id = excluded.key_id, secret_hash = excluded.secret_hash, rotated_at = excluded.rotated_at, revoked_at = excluded.revoked_at',
      where: `(integrations.key_id, integrations.secret_hash, integrations.rotated_at, integrations.revoked_at) IS DISTINCT FROM
        (excluded.key_id, excluded.secret_hash, excluded.rotated_at, excluded.revoked_at)`,
    },
  },
  {
    table: 'order_production_history',
    what: 'production report (same order and position, another state)',
    key: ['order_id', 'idx'],
    columns: ['order_id', 'idx', 'stato', 'nota', 'at', 'integration'],
    same: ['stato'],
  },
];

/**
 * Migration 010: operator accounts, the audit log and the cookie signing key. Sessions are not copied (web_sessions
 * is in copy.ts's NOT_COPIED): people log in again after the switch.
 */
export const WEB_TABLES: readonly TableSpec[] = [
  {
    table: 'operators',
    what: 'operator (same id, another e-mail)',
    key: ['id'],
    columns: ['id', 'email', 'role', 'password_hash', 'created_at', 'disabled_at'],
    same: ['email'],
    update: {
      set: 'role = excluded.role, password_hash = excluded.password_hash, disabled_at = excluded.disabled_at',
      where: `(operators.role, operators.password_hash, operators.disabled_at) IS DISTINCT FROM
        (excluded.role, excluded.password_hash, excluded.disabled_at)`,
    },
  },
  {
    table: 'audit_log',
    what: 'audit entry',
    key: ['id'],
    columns: ['id', 'at', 'actor', 'action', 'object_type', 'object_id', 'detail'],
    same: ['actor', 'action'],
  },
  {
    table: 'web_keys',
    what: 'web key (another value under the same name)',
    key: ['name'],
    columns: ['name', 'value'],
    same: ['value'],
  },
];

/** Migration 018: e-mail notifications of production status, per customer (the notifications themselves are mail_replies). */
export const NOTIFICATION_TABLES: readonly TableSpec[] = [
  {
    table: 'customer_notifications',
    what: 'notification setting',
    key: ['customer_id'],
    columns: ['customer_id', 'enabled', 'address', 'updated_at'],
    bool: ['enabled'],
    same: [],
    update: {
      set: 'enabled = excluded.enabled, address = excluded.address, updated_at = excluded.updated_at',
      where: `(customer_notifications.enabled, customer_notifications.address) IS DISTINCT FROM (excluded.enabled, excluded.address)`,
    },
  },
];

/** Migration 031: articles taken out of service (the source's descriptions win, as for the articles themselves). */
export const CATALOG_TABLES: readonly TableSpec[] = [
  {
    table: 'inactive_articles',
    what: 'deactivated article',
    key: ['codice_articolo'],
    columns: ['codice_articolo', 'descrizione', 'unita_misura', 'deactivated_at'],
    same: [],
    update: {
      set: 'descrizione = excluded.descrizione, unita_misura = excluded.unita_misura, deactivated_at = excluded.deactivated_at',
      where: `(inactive_articles.descrizione, inactive_articles.unita_misura, inactive_articles.deactivated_at)
        IS DISTINCT FROM (excluded.descrizione, excluded.unita_misura, excluded.deactivated_at)`,
    },
  },
];

/** Migration 035: Peppol identifiers of customers, GTINs, customers' article cross-references (the source's values win). */
export const PEPPOL_TABLES: readonly TableSpec[] = [
  {
    table: 'customer_peppol_ids',
    what: 'Peppol identifier (held by another customer)',
    key: ['scheme', 'identifier'],
    columns: ['scheme', 'identifier', 'customer_id', 'created_at'],
    same: ['customer_id'],
  },
  {
    table: 'article_gtins',
    what: 'GTIN',
    key: ['gtin'],
    columns: ['gtin', 'codice_articolo'],
    same: [],
    update: {
      set: 'codice_articolo = excluded.codice_articolo',
      where: 'article_gtins.codice_articolo IS DISTINCT FROM excluded.codice_articolo',
    },
  },
  {
    table: 'article_xrefs',
    what: 'article cross-reference',
    key: ['customer_id', 'codice_cliente_articolo'],
    columns: ['customer_id', 'codice_cliente_articolo', 'codice_articolo'],
    same: [],
    update: {
      set: 'codice_articolo = excluded.codice_articolo',
      where: 'article_xrefs.codice_articolo IS DISTINCT FROM excluded.codice_articolo',
    },
  },
  {
    table: 'ubl_change_sequences',
    what: 'UBL change sequence',
    key: ['order_id'],
    columns: ['order_id', 'sequence'],
    same: [],
    update: { set: 'sequence = excluded.sequence', where: 'ubl_change_sequences.sequence < excluded.sequence' },
  },
];

/** Migration 036: senders' policies and held messages (after mail_messages, which a hold names). */
export const MAIL_TRUST_TABLES: readonly TableSpec[] = [
  {
    table: 'mail_holds',
    what: 'held message (same message, another customer)',
    key: ['mail_id'],
    columns: ['mail_id', 'customer_id', 'reason', 'sender', 'detail', 'held_at', 'state', 'decided_by', 'decided_at'],
    same: ['customer_id'],
    update: {
      set: `reason = excluded.reason, sender = excluded.sender, detail = excluded.detail, held_at = excluded.held_at, state = excluded.state,
        decided_by = excluded.decided_by, decided_at = excluded.decided_at`,
      where: `(mail_holds.reason, mail_holds.held_at, mail_holds.state, mail_holds.decided_by, mail_holds.decided_at)
        IS DISTINCT FROM (excluded.reason, excluded.held_at, excluded.state, excluded.decided_by, excluded.decided_at)`,
    },
  },
  {
    table: 'customer_mail_policies',
    what: 'sender policy',
    key: ['customer_id'],
    columns: ['customer_id', 'mode', 'allow', 'notify_held', 'updated_at'],
    bool: ['notify_held'],
    same: [],
    update: {
      set: 'mode = excluded.mode, allow = excluded.allow, notify_held = excluded.notify_held, updated_at = excluded.updated_at',
      where: `(customer_mail_policies.mode, customer_mail_policies.allow::text, customer_mail_policies.notify_held, customer_mail_policies.updated_at)
        IS DISTINCT FROM (excluded.mode, excluded.allow::text, excluded.notify_held, excluded.updated_at)`,
    },
  },
];

export const SPEC_TABLES: readonly TableSpec[] = [...MAIL_TABLES, ...CONNECTOR_TABLES, ...CIP4_TABLES, ...OUTBOX_TABLES, ...WEB_TABLES,
  ...NOTIFICATION_TABLES, ...CATALOG_TABLES, ...LIFECYCLE_TABLES, ...MAIL_TRUST_TABLES, ...PEPPOL_TABLES];
