"""Calls one operation of the order service with zeep, built from the served WSDL as it is.

Usage: zeep_call.py <wsdl-url> <namespace> <api-key> <operation> <arguments as JSON>
Prints one JSON object: {"ok": <the response, serialised>} or {"fault": {"code": ..., "message": ...}}.
"""
import json
import sys

import zeep
from zeep.exceptions import Fault
from zeep.helpers import serialize_object


def main() -> None:
    wsdl, ns, key, operation, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], json.loads(sys.argv[5])
    client = zeep.Client(wsdl)
    # The header element the WSDL's binding declares for every operation.
    header = client.get_element('{%s}Autenticazione' % ns)
    try:
        result = getattr(client.service, operation)(**args, _soapheaders=[header(ApiKey=key)])
        print(json.dumps({'ok': serialize_object(result, dict)}, default=str))
    except Fault as f:
        print(json.dumps({'fault': {'code': f.code, 'message': f.message}}))


if __name__ == '__main__':
    main()
