/**
 * SOAP 1.1 faults. The faultcode comes from the error catalog (`soapFault`), so SOAP refuses exactly what REST
 * refuses, with the same words; only VersionMismatch and MustUnderstand are SOAP's own (another SOAP version, a
 * header block the sender says we must process: errors no other channel can meet).
 *
 * The `detail` element (`ord:erroriValidazione`) carries the list of messages for the failures REST answers with
 * 400 and a `message` array (shape A: structure errors, unreadable requests). Other faults (key, tenancy, not
 * found, size) have a single message, and it is the faultstring. SOAP 1.1 forbids detail for header errors, and
 * the key is a header: consistent with that rule.
 */
import { ERROR_CATALOG, IntakeError, type ErrorCode } from '../../domain/errors.ts';

export type FaultCode = 'VersionMismatch' | 'MustUnderstand' | 'Client' | 'Server';

export class SoapFault extends Error {
  readonly faultcode: FaultCode;
  readonly faultstring: string;
  /** Messages for `ord:erroriValidazione`; undefined means no detail element. */
  readonly detail?: readonly string[];

  constructor(faultcode: FaultCode, faultstring: string, detail?: readonly string[]) {
    super(faultstring);
    this.name = 'SoapFault';
    this.faultcode = faultcode;
    this.faultstring = faultstring;
    this.detail = detail && detail.length > 0 ? detail : undefined;
  }

  /** A fault for a catalog code; messages default to the catalog's text. */
  static of(code: ErrorCode, messages?: string | readonly string[]): SoapFault {
    const list = messages === undefined ? [ERROR_CATALOG[code].message] : typeof messages === 'string' ? [messages] : [...messages];
    const entry = ERROR_CATALOG[code];
    return new SoapFault(entry.soapFault, list.join('; '), entry.http === 400 ? list : undefined);
  }

  static fromIntakeError(e: IntakeError): SoapFault {
    return SoapFault.of(e.code, e.messages);
  }

  /** Internal failures: the generic text only, never what went wrong inside. */
  static internal(): SoapFault {
    return SoapFault.of('INTERNAL');
  }
}
