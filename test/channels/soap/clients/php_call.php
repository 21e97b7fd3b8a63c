<?php
// Calls one operation of the order service with PHP's SoapClient, built from the served WSDL as it is.
// Usage: php php_call.php <wsdl-url> <namespace> <api-key> <operation> <arguments as JSON>
// Prints one JSON object: {"ok": <the response>} or {"fault": {"code": ..., "message": ...}}.
[, $wsdl, $ns, $key, $operation, $json] = $argv;
$client = new SoapClient($wsdl, ['exceptions' => true, 'cache_wsdl' => WSDL_CACHE_NONE, 'features' => SOAP_SINGLE_ELEMENT_ARRAYS]);
$client->__setSoapHeaders(new SoapHeader($ns, 'Autenticazione', ['ApiKey' => $key]));
try {
    $result = $client->__soapCall($operation, [json_decode($json, true)]);
    echo json_encode(['ok' => $result], JSON_UNESCAPED_UNICODE), "\n";
} catch (SoapFault $f) {
    echo json_encode(['fault' => ['code' => $f->faultcode, 'message' => $f->faultstring]], JSON_UNESCAPED_UNICODE), "\n";
}
