"""Calls every operation of the back-office SOAP API from its WSDL alone, with Python's zeep.

Every request zeep sends and every reply it receives (but Faults, whose schema is SOAP's own) is
validated against the XSD inside the WSDL with lxml, the parser zeep itself uses.

usage: python interop.py <wsdl url> <username> <password>
Exits 0 when every check passed, 1 otherwise, printing one line per check.
"""
import sys
import time

from lxml import etree
from zeep import Client, Plugin
from zeep.exceptions import Fault
from zeep.transports import Transport
import requests

SOAP_ENV = "http://schemas.xmlsoap.org/soap/envelope/"
XSD = "http://www.w3.org/2001/XMLSchema"

failures = []


def check(name, condition, detail=""):
    print(("ok   " if condition else "FAIL ") + name + (f": {detail}" if detail and not condition else ""))
    if not condition:
        failures.append(name)


class SchemaCheck(Plugin):
    """Validates the Body's element of every message against the WSDL's own XSD."""

    def __init__(self, schema):
        self.schema = schema
        self.validated = 0
        self.invalid = []

    def _validate(self, envelope, direction):
        body = envelope.find(f"{{{SOAP_ENV}}}Body")
        if body is None or len(body) == 0:
            self.invalid.append(f"{direction}: no Body element")
            return
        element = body[0]
        if element.tag == f"{{{SOAP_ENV}}}Fault":
            return
        copy = etree.fromstring(etree.tostring(element))
        if not self.schema.validate(copy):
            self.invalid.append(f"{direction} {etree.QName(element).localname}: {self.schema.error_log.last_error}")
        self.validated += 1

    def egress(self, envelope, http_headers, operation, binding_options):
        self._validate(envelope, "request")
        return envelope, http_headers

    def ingress(self, envelope, http_headers, operation):
        self._validate(envelope, "reply")
        return envelope, http_headers


def events_of(reply):
    """zeep unwraps `events_Get > events > event*` into the list of events (None when empty)."""
    if reply is None:
        return []
    if isinstance(reply, list):
        return reply
    return list(getattr(reply, "event", None) or [])


def schema_of(wsdl_url):
    wsdl = etree.fromstring(requests.get(wsdl_url, timeout=10).content)
    schema = wsdl.find(f".//{{{XSD}}}schema")
    return etree.XMLSchema(schema)


def main():
    wsdl_url, username, password = sys.argv[1:4]
    checker = SchemaCheck(schema_of(wsdl_url))
    client = Client(wsdl_url, transport=Transport(timeout=30), plugins=[checker])
    service = client.service
    login = {"username": username, "password": password}

    operations = sorted(op for op in client.wsdl.bindings[list(client.wsdl.bindings)[0]]._operations)
    check("the WSDL has the sixteen operations of the spec", len(operations) == 16, ", ".join(operations))

    def call(name, **kwargs):
        try:
            return getattr(service, name)(login=login, **kwargs)
        except Fault as fault:
            check(name, False, f"Fault {fault.code}: {fault.message}")
            return None

    ref = lambda id_: {"id": id_}  # noqa: E731
    address = {"firstname": "Åsa", "lastname": "Öberg", "city": "Malmö", "country": "SE", "email": "asa@example.com"}
    line = {"id": "L1", "sku": "SKU-1", "price": "100.00", "qty": "2", "sizes": {"size": [{"id": "M", "qty": "2"}]}}
    updates = {
        "markets_Update": {"markets": {"market": [{"id": "EU", "description": "Europe"}, {"id": "US"}]}},
        "warehouses_Update": {"warehouses": {"warehouse": [{"id": "W1", "description": "Main"}]}},
        "sizes_Update": {"sizes": {"size": [{"id": "M", "description": "Medium", "sizetable": {"id": "T1", "stockdivisor": "1"}}]}},
        "pricelists_Update": {
            "pricelists": {"pricelist": [{"id": "PL-EU", "currency": "EUR", "items": {"product": [{"id": "P1", "price": "49.90", "variation": {"id": "V1", "price": "39.90"}}]}}]}
        },
        "deliverywindows_Update": {
            "deliverywindows": {"deliverywindow": [{"id": "DW1", "startdate": "2026-03-01", "stopdate": "2026-04-01", "atonce": True, "variations": {"variation": [{"id": "V1", "productlimit": 5}]}}]}
        },
        "products_Update": {
            "products": {
                "product": [
                    {
                        "id": "P1",
                        "sku": "SHIRT",
                        "description": "Shirt",
                        "brand": ref("B1"),
                        "variations": {"variation": [{"id": "V1", "description": "Blue", "sizes": {"size": [{"id": "M", "qty": "3", "warehouseitems": {"warehouse": [{"id": "W1", "qty": "3"}]}}]}, "displays": {"display": [{"markets": {"market": [ref("EU")]}}]}}]},
                    }
                ]
            }
        },
        "customers_Update": {"customers": {"customer": [{"id": "C1", "store": 1, "firstname": "Åsa", "email": "asa@example.com"}]}},
        "accounts_Update": {
            "accounts": {"account": [{"id": "A1", "market": ref("EU"), "accountaddress": address, "buyers": {"buyer": [{"id": "B1", "store": 1, "email": "b@example.com", "password": "buyer-secret"}]}}]}
        },
        "salesreps_Update": {"salesreps": {"salesrep": [{"id": "R1", "name": "Rep", "mastersalesrep": {"salesrep": [{"id": "R0", "percent": "5"}]}}]}},
        "paymentterms_Update": {"paymentterms": {"paymentterms": [{"id": "NET30", "name": "30 days", "duedays": "30"}]}},
        "shippingterms_Update": {"shippingterms": {"shippingterms": [{"id": "EXW", "name": "Ex works"}]}},
        "orders_Update": {
            "orders": {"order": [{"id": "O1", "ordernumber": "1001", "store": 1, "internal": False, "currency": "EUR", "market": ref("US"), "shippingaddress": address, "products": {"product": [line]}}]}
        },
        "invoices_Update": {
            "invoices": {"invoice": [{"id": "I1", "currency": "EUR", "order": ref("O1"), "items": {"invoiceitem": [{"itemid": "1", "qty": "2", "price": "100.00", "product": ref("P1")}], "additional": [{"key": "shipping", "subtotal": "5.00"}]}}]}
        },
    }
    for name, args in updates.items():
        result = call(name, **args)
        if result is not None:
            check(name, result == "OK", repr(result))

    # The feed: with SOAP_ECHO_EVENTS the upserts above come back, and the catalog's product change too.
    expected = {"market", "warehouse", "size", "pricelist", "customer", "account", "salesrep", "paymentterm", "shippingterm", "order", "invoice", "stock"}
    events, seen, deadline = [], set(), time.time() + 20
    while time.time() < deadline and not expected <= seen:
        reply = call("events_Get", type="all")
        page = events_of(reply)
        events.extend(page)
        seen |= {e.type for e in page}
        if page:
            done = call("events_Done", event=[e.id for e in page])
            check("events_Done of a page", done == "OK", repr(done))
        else:
            time.sleep(0.2)
    check("events_Get lists every kind of event", expected <= seen, f"missing {sorted(expected - seen)}")
    ids = [int(e.id) for e in events]
    check("events come oldest first with increasing ids", ids == sorted(ids) and len(set(ids)) == len(ids))
    check("every event has a date with an offset and a mission", all(e.date[-6] in "+-" and e.mission in ("update", "delete") for e in events))
    customer = next((e for e in events if e.type == "customer"), None)
    check("an event holds its entity in its SOAP shape", customer is not None and customer.data.customer.firstname == "Åsa")
    account = next((e for e in events if e.type == "account"), None)
    check("no buyer password in an account event", account is not None and all(getattr(b, "password", None) is None for b in account.data.account.buyers.buyer))

    reply = call("events_Get", type="all")
    check("events marked done are not listed again", events_of(reply) == [])

    call("orders_Update", orders={"order": [{"id": "O2", "market": ref("US")}]})
    call("customers_Update", customers={"customer": [{"id": "C2"}]})
    by_market, deadline = [], time.time() + 10
    while time.time() < deadline and not by_market:
        reply = call("events_GetByMarkets", type="all", markets={"market": [ref("US")]})
        by_market = events_of(reply)
        if not by_market:
            time.sleep(0.2)
    check("events_GetByMarkets lists only the market's events", [e.entry for e in by_market] == ["O2"], repr([e.entry for e in by_market]))

    try:
        service.events_Done(login=login, event=["999999999"])
        check("events_Done of an unknown number is a Client fault", False, "no fault")
    except Fault as fault:
        check("events_Done of an unknown number is a Client fault", "Client" in str(fault.code), str(fault.code))
    try:
        service.markets_Update(login={"username": username, "password": "wrong"}, markets={"market": [{"id": "X"}]})
        check("a wrong password is a Client fault", False, "no fault")
    except Fault as fault:
        check("a wrong password is a Client fault", "Client" in str(fault.code) and fault.message == "login failed", f"{fault.code} {fault.message}")

    check(f"every request and reply matches the XSD ({checker.validated} checked)", checker.validated > 20 and not checker.invalid, "; ".join(checker.invalid[:5]))
    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
