/**
 * The WSDL 1.1 document (document/literal, wrapped: one `parameters` part per message, named like the operation)
 * with its schema embedded. Wrapped document/literal is what .NET, JAX-WS, zeep and node-soap all generate clients
 * from without hand-editing, and what WS-I Basic Profile asks for.
 *
 * The schema declares its own prefixes (xsd, ord) on xsd:schema, not only on wsdl:definitions, so it can be taken
 * out and used on its own (tests validate requests and real responses with it). It tells clients what to send;
 * the service itself is more lenient (unqualified children, any prefix), see envelope.ts.
 */
import { escapeXml } from './xml-text.ts';
import { MAX_NOTE_CHARS } from '../../domain/types.ts';

export const SERVICE_PATH = '/ws/ordini';

/** The namespace of every ord: element: `{publicUrl}/ws/ordini`, as the spec's `ord` prefix says. */
export function namespaceFor(base: string): string {
  return `${base.replace(/\/+$/, '')}${SERVICE_PATH}`;
}

const OPTIONAL = 'minOccurs="0"';

function schema(ns: string): string {
  return `<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:ord="${ns}" targetNamespace="${ns}" elementFormDefault="qualified">
      <xsd:simpleType name="Codice">
        <xsd:restriction base="xsd:string"><xsd:minLength value="1"/><xsd:maxLength value="64"/></xsd:restriction>
      </xsd:simpleType>
      <xsd:simpleType name="Data">
        <xsd:annotation><xsd:documentation>Data YYYY-MM-DD, senza fuso orario.</xsd:documentation></xsd:annotation>
        <xsd:restriction base="xsd:date"><xsd:pattern value="\\d{4}-\\d{2}-\\d{2}"/></xsd:restriction>
      </xsd:simpleType>
      <xsd:simpleType name="Note">
        <xsd:annotation><xsd:documentation>Note dell'ordine: testo libero, a capo e tabulazioni ammessi.</xsd:documentation></xsd:annotation>
        <xsd:restriction base="xsd:string"><xsd:maxLength value="${MAX_NOTE_CHARS}"/></xsd:restriction>
      </xsd:simpleType>
      <xsd:simpleType name="Quantita">
        <xsd:restriction base="xsd:decimal"><xsd:minExclusive value="0"/></xsd:restriction>
      </xsd:simpleType>
      <xsd:simpleType name="Esito">
        <xsd:restriction base="xsd:string"><xsd:enumeration value="ok"/><xsd:enumeration value="errore"/></xsd:restriction>
      </xsd:simpleType>
      <xsd:simpleType name="Stato">
        <xsd:restriction base="xsd:string">
          <xsd:enumeration value="ricevuto"/><xsd:enumeration value="registrato"/><xsd:enumeration value="rifiutato"/><xsd:enumeration value="annullato"/>
        </xsd:restriction>
      </xsd:simpleType>
      <xsd:simpleType name="StatoRichiesta">
        <xsd:restriction base="xsd:string">
          <xsd:enumeration value="in_attesa"/><xsd:enumeration value="accettata"/><xsd:enumeration value="rifiutata"/>
        </xsd:restriction>
      </xsd:simpleType>
      <xsd:simpleType name="StatoProduzione">
        <xsd:restriction base="xsd:string">
          <xsd:enumeration value="in_lavorazione"/><xsd:enumeration value="spedito"/><xsd:enumeration value="consegnato"/><xsd:enumeration value="annullato"/>
        </xsd:restriction>
      </xsd:simpleType>
      <xsd:complexType name="PassoProduzione">
        <xsd:sequence>
          <xsd:element name="stato" type="ord:StatoProduzione"/>
          <xsd:element name="nota" type="xsd:string" ${OPTIONAL}/>
          <xsd:element name="aggiornato_il" type="xsd:dateTime"/>
        </xsd:sequence>
      </xsd:complexType>
      <xsd:complexType name="StoricoProduzione">
        <xsd:sequence><xsd:element name="passo" type="ord:PassoProduzione" maxOccurs="unbounded"/></xsd:sequence>
      </xsd:complexType>
      <xsd:complexType name="Riga">
        <xsd:sequence>
          <xsd:element name="codice_articolo" type="ord:Codice"/>
          <xsd:element name="quantita" type="ord:Quantita"/>
          <xsd:element name="unita_misura" type="ord:Codice"/>
        </xsd:sequence>
      </xsd:complexType>
      <xsd:complexType name="Righe">
        <xsd:sequence><xsd:element name="riga" type="ord:Riga" maxOccurs="unbounded"/></xsd:sequence>
      </xsd:complexType>
      <xsd:complexType name="Errore">
        <xsd:sequence>
          <xsd:element name="campo" type="xsd:string"/>
          <xsd:element name="messaggio" type="xsd:string"/>
        </xsd:sequence>
      </xsd:complexType>
      <xsd:complexType name="Errori">
        <xsd:sequence><xsd:element name="errore" type="ord:Errore" maxOccurs="unbounded"/></xsd:sequence>
      </xsd:complexType>
      <xsd:complexType name="Messaggi">
        <xsd:sequence><xsd:element name="messaggio" type="xsd:string" maxOccurs="unbounded"/></xsd:sequence>
      </xsd:complexType>
      <xsd:complexType name="Versione">
        <xsd:sequence>
          <xsd:element name="versione" type="xsd:int"/>
          <xsd:element name="ricevuto_il" type="xsd:dateTime"/>
          <xsd:element name="canale" type="xsd:string"/>
          <xsd:element name="azione" type="xsd:string"/>
        </xsd:sequence>
      </xsd:complexType>
      <xsd:complexType name="Versioni">
        <xsd:sequence><xsd:element name="versione" type="ord:Versione" maxOccurs="unbounded"/></xsd:sequence>
      </xsd:complexType>
      <xsd:complexType name="Richiesta">
        <xsd:annotation><xsd:documentation>Una modifica o un annullamento che la produzione deve accettare o rifiutare.</xsd:documentation></xsd:annotation>
        <xsd:sequence>
          <xsd:element name="id_richiesta" type="xsd:string"/>
          <xsd:element name="tipo" type="xsd:string"/>
          <xsd:element name="stato_richiesta" type="ord:StatoRichiesta"/>
          <xsd:element name="motivo" type="xsd:string" ${OPTIONAL}/>
          <xsd:element name="nota" type="xsd:string" ${OPTIONAL}/>
          <xsd:element name="ricevuta_il" type="xsd:dateTime"/>
          <xsd:element name="decisa_il" type="xsd:dateTime" ${OPTIONAL}/>
        </xsd:sequence>
      </xsd:complexType>
      <xsd:complexType name="Richieste">
        <xsd:sequence><xsd:element name="richiesta" type="ord:Richiesta" maxOccurs="unbounded"/></xsd:sequence>
      </xsd:complexType>
      <xsd:complexType name="EsitoModifica">
        <xsd:annotation><xsd:documentation>versione dopo una modifica applicata, stato dopo un annullamento; id_richiesta e stato_richiesta quando decide la produzione.</xsd:documentation></xsd:annotation>
        <xsd:sequence>
          <xsd:element name="esito" type="ord:Esito"/>
          <xsd:element name="id_ordine" type="xsd:string" ${OPTIONAL}/>
          <xsd:element name="numero_ordine" type="xsd:string" ${OPTIONAL}/>
          <xsd:element name="versione" type="xsd:int" ${OPTIONAL}/>
          <xsd:element name="stato" type="ord:Stato" ${OPTIONAL}/>
          <xsd:element name="id_richiesta" type="xsd:string" ${OPTIONAL}/>
          <xsd:element name="stato_richiesta" type="ord:StatoRichiesta" ${OPTIONAL}/>
          <xsd:element name="messaggio" type="xsd:string" ${OPTIONAL}/>
          <xsd:element name="duplicato" type="xsd:boolean" ${OPTIONAL}/>
          <xsd:element name="errori" type="ord:Errori" ${OPTIONAL}/>
        </xsd:sequence>
      </xsd:complexType>
      <xsd:element name="Autenticazione">
        <xsd:complexType><xsd:sequence><xsd:element name="ApiKey" type="xsd:string"/></xsd:sequence></xsd:complexType>
      </xsd:element>
      <xsd:element name="InviaOrdine">
        <xsd:complexType>
          <xsd:sequence>
            <xsd:element name="codice_cliente" type="ord:Codice"/>
            <xsd:element name="riferimento_ordine" type="ord:Codice"/>
            <xsd:element name="data_ordine" type="ord:Data"/>
            <xsd:element name="data_consegna" type="ord:Data" ${OPTIONAL}/>
            <xsd:element name="note" type="ord:Note" ${OPTIONAL}/>
            <xsd:element name="righe" type="ord:Righe"/>
          </xsd:sequence>
        </xsd:complexType>
      </xsd:element>
      <xsd:element name="InviaOrdineResponse">
        <xsd:complexType>
          <xsd:sequence>
            <xsd:element name="esito" type="ord:Esito"/>
            <xsd:element name="id_ordine" type="xsd:string" ${OPTIONAL}/>
            <xsd:element name="numero_ordine" type="xsd:string" ${OPTIONAL}/>
            <xsd:element name="messaggio" type="xsd:string" ${OPTIONAL}/>
            <xsd:element name="duplicato" type="xsd:boolean" ${OPTIONAL}/>
            <xsd:element name="errori" type="ord:Errori" ${OPTIONAL}/>
          </xsd:sequence>
        </xsd:complexType>
      </xsd:element>
      <xsd:element name="ModificaOrdine">
        <xsd:annotation><xsd:documentation>L'ordine nuovo per intero (come InviaOrdine): le sue righe sostituiscono quelle attuali.</xsd:documentation></xsd:annotation>
        <xsd:complexType>
          <xsd:sequence>
            <xsd:element name="codice_cliente" type="ord:Codice"/>
            <xsd:element name="riferimento_ordine" type="ord:Codice"/>
            <xsd:element name="data_ordine" type="ord:Data"/>
            <xsd:element name="data_consegna" type="ord:Data" ${OPTIONAL}/>
            <xsd:element name="note" type="ord:Note" ${OPTIONAL}/>
            <xsd:element name="motivo" type="ord:Note" ${OPTIONAL}/>
            <xsd:element name="righe" type="ord:Righe"/>
          </xsd:sequence>
        </xsd:complexType>
      </xsd:element>
      <xsd:element name="ModificaOrdineResponse" type="ord:EsitoModifica"/>
      <xsd:element name="AnnullaOrdine">
        <xsd:complexType>
          <xsd:sequence>
            <xsd:element name="codice_cliente" type="ord:Codice"/>
            <xsd:element name="riferimento_ordine" type="ord:Codice"/>
            <xsd:element name="motivo" type="ord:Note" ${OPTIONAL}/>
          </xsd:sequence>
        </xsd:complexType>
      </xsd:element>
      <xsd:element name="AnnullaOrdineResponse" type="ord:EsitoModifica"/>
      <xsd:element name="StatoOrdine">
        <xsd:complexType>
          <xsd:choice>
            <xsd:element name="id_ordine" type="xsd:string"/>
            <xsd:element name="riferimento_ordine" type="ord:Codice"/>
          </xsd:choice>
        </xsd:complexType>
      </xsd:element>
      <xsd:element name="StatoOrdineResponse">
        <xsd:complexType>
          <xsd:sequence>
            <xsd:element name="stato" type="ord:Stato"/>
            <xsd:element name="id_ordine" type="xsd:string" ${OPTIONAL}/>
            <xsd:element name="numero_ordine" type="xsd:string" ${OPTIONAL}/>
            <xsd:element name="codice_cliente" type="xsd:string" ${OPTIONAL}/>
            <xsd:element name="riferimento_ordine" type="xsd:string" ${OPTIONAL}/>
            <xsd:element name="data_ordine" type="ord:Data" ${OPTIONAL}/>
            <xsd:element name="data_consegna" type="ord:Data" ${OPTIONAL}/>
            <xsd:element name="note" type="ord:Note" ${OPTIONAL}/>
            <xsd:element name="righe" type="ord:Righe" ${OPTIONAL}/>
            <xsd:element name="sito_produzione" type="xsd:string" ${OPTIONAL}/>
            <xsd:element name="canale" type="xsd:string"/>
            <xsd:element name="ricevuto_il" type="xsd:dateTime" ${OPTIONAL}/>
            <xsd:element name="registrato_il" type="xsd:dateTime" ${OPTIONAL}/>
            <xsd:element name="stato_produzione" type="ord:StatoProduzione" ${OPTIONAL}/>
            <xsd:element name="storico_produzione" type="ord:StoricoProduzione" ${OPTIONAL}/>
            <xsd:element name="messaggi" type="ord:Messaggi" ${OPTIONAL}/>
            <xsd:element name="errori" type="ord:Errori" ${OPTIONAL}/>
            <xsd:element name="versione" type="xsd:int" ${OPTIONAL}/>
            <xsd:element name="versioni" type="ord:Versioni" ${OPTIONAL}/>
            <xsd:element name="richieste" type="ord:Richieste" ${OPTIONAL}/>
          </xsd:sequence>
        </xsd:complexType>
      </xsd:element>
      <xsd:element name="erroriValidazione" type="ord:Messaggi"/>
    </xsd:schema>`;
}

function operation(name: string, doc: string): string {
  return `<wsdl:operation name="${name}">
      <wsdl:documentation>${doc}</wsdl:documentation>
      <wsdl:input message="ord:${name}Request"/>
      <wsdl:output message="ord:${name}Response"/>
      <wsdl:fault name="Errore" message="ord:ErroreFault"/>
    </wsdl:operation>`;
}

function boundOperation(name: string, ns: string): string {
  return `<wsdl:operation name="${name}">
      <soap:operation soapAction="${ns}#${name}" style="document"/>
      <wsdl:input>
        <soap:body use="literal"/>
        <soap:header message="ord:AutenticazioneHeader" part="Autenticazione" use="literal"/>
      </wsdl:input>
      <wsdl:output><soap:body use="literal"/></wsdl:output>
      <wsdl:fault name="Errore"><soap:fault name="Errore" use="literal"/></wsdl:fault>
    </wsdl:operation>`;
}

/** The WSDL for a base URL such as `http://localhost:8080`; namespace and address both derive from it. */
export function wsdlFor(base: string): string {
  const ns = escapeXml(namespaceFor(base));
  return `<?xml version="1.0" encoding="UTF-8"?>
<wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:ord="${ns}" name="Ordini" targetNamespace="${ns}">
  <wsdl:documentation>Ricezione ordini: InviaOrdine registra un ordine, ModificaOrdine e AnnullaOrdine lo modificano o lo annullano, StatoOrdine ne mostra lo stato. Ogni chiamata porta l'intestazione ord:Autenticazione con la chiave API (ord:ApiKey).</wsdl:documentation>
  <wsdl:types>
    ${schema(ns)}
  </wsdl:types>
  <wsdl:message name="AutenticazioneHeader"><wsdl:part name="Autenticazione" element="ord:Autenticazione"/></wsdl:message>
  <wsdl:message name="InviaOrdineRequest"><wsdl:part name="parameters" element="ord:InviaOrdine"/></wsdl:message>
  <wsdl:message name="InviaOrdineResponse"><wsdl:part name="parameters" element="ord:InviaOrdineResponse"/></wsdl:message>
  <wsdl:message name="StatoOrdineRequest"><wsdl:part name="parameters" element="ord:StatoOrdine"/></wsdl:message>
  <wsdl:message name="StatoOrdineResponse"><wsdl:part name="parameters" element="ord:StatoOrdineResponse"/></wsdl:message>
  <wsdl:message name="ModificaOrdineRequest"><wsdl:part name="parameters" element="ord:ModificaOrdine"/></wsdl:message>
  <wsdl:message name="ModificaOrdineResponse"><wsdl:part name="parameters" element="ord:ModificaOrdineResponse"/></wsdl:message>
  <wsdl:message name="AnnullaOrdineRequest"><wsdl:part name="parameters" element="ord:AnnullaOrdine"/></wsdl:message>
  <wsdl:message name="AnnullaOrdineResponse"><wsdl:part name="parameters" element="ord:AnnullaOrdineResponse"/></wsdl:message>
  <wsdl:message name="ErroreFault"><wsdl:part name="detail" element="ord:erroriValidazione"/></wsdl:message>
  <wsdl:portType name="OrdiniPortType">
    ${operation('InviaOrdine', 'Registra un ordine (uno per chiamata). Un ordine già registrato con lo stesso contenuto restituisce i numeri esistenti con duplicato=true.')}
    ${operation('StatoOrdine', "Stato di un ordine del cliente autenticato, per id_ordine o riferimento_ordine, qualunque canale l'abbia portato: con la versione attuale, le versioni e le richieste alla produzione.")}
    ${operation('ModificaOrdine', "Modifica un ordine registrato (codice_cliente + riferimento_ordine) con l'ordine nuovo per intero: ne fa la versione successiva; se la produzione ha iniziato, inoltra una richiesta che la produzione accetta o rifiuta. Un ordine spedito, consegnato o annullato non si modifica (Fault).")}
    ${operation('AnnullaOrdine', "Annulla un ordine registrato, con un motivo facoltativo; se la produzione ha iniziato, inoltra una richiesta di annullamento. Un ordine spedito o consegnato non si annulla (Fault).")}
  </wsdl:portType>
  <wsdl:binding name="OrdiniBinding" type="ord:OrdiniPortType">
    <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
    ${boundOperation('InviaOrdine', ns)}
    ${boundOperation('StatoOrdine', ns)}
    ${boundOperation('ModificaOrdine', ns)}
    ${boundOperation('AnnullaOrdine', ns)}
  </wsdl:binding>
  <wsdl:service name="OrdiniService">
    <wsdl:port name="OrdiniPort" binding="ord:OrdiniBinding">
      <soap:address location="${ns}"/>
    </wsdl:port>
  </wsdl:service>
</wsdl:definitions>
`;
}
