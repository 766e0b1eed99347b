"""What the API's description cannot say in JSON Schema, taught to Schemathesis's valid
("positive") requests, so that every check stays on (ADR 0015).
Requests it generates to be invalid ("negative") are sent as they are. Every phase sends its
requests through `before_call`, so the coverage phase's hand-built requests are covered too.

- How numbers are written: JSON Schema knows numbers, not their notation. The API takes numbers
  in plain decimal, amounts exact to two decimals, integers without a fraction: a generated
  float is rounded to two decimals and written without a fraction when whole (every float of a
  request is an amount; `7861.0` would be refused for an integer).
- Relations between fields: an order has one line per product; the revenue range's `from` is not
  after its `to` and spans at most 366 days (`to` is today and `from` 29 days before `to` when
  absent).
"""

from datetime import date, timedelta

import schemathesis
from schemathesis.core import NotSet


def _plain(value):
    if isinstance(value, float):
        cents = round(value, 2)
        return int(cents) if cents == int(cents) else cents
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def _one_line_per_product(body):
    items = body.get("items") if isinstance(body, dict) else None
    if not isinstance(items, list):
        return body
    seen, kept = set(), []
    for item in items:
        key = repr(item.get("productId")) if isinstance(item, dict) else repr(item)
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return {**body, "items": kept}


def _day(text):
    try:
        return date.fromisoformat(text) if isinstance(text, str) and len(text) == 10 else None
    except ValueError:
        return None


def _revenue_range_in_order(query):
    to_day = _day(query["to"]) if "to" in query else date.today()
    from_day = _day(query["from"]) if "from" in query else (to_day - timedelta(days=29) if to_day else None)
    if from_day is None or to_day is None:
        return query
    if from_day <= to_day and (to_day - from_day).days < 366:
        return query
    # `to` was given with `from`, or `from` alone reaches too far from today: one day's range.
    return {**query, "to": query["from"]}


def _operation_id(case):
    definition = case.operation.definition.raw
    return definition.get("operationId") if isinstance(definition, dict) else None


@schemathesis.hook
def before_call(ctx, case, kwargs):
    meta = case.meta
    if meta is None or meta.generation.mode.is_negative:
        return
    operation = _operation_id(case)
    if case.body is not None and not isinstance(case.body, NotSet):
        body = _plain(case.body)
        case.body = _one_line_per_product(body) if operation == "placeOrder" else body
    if operation == "getRevenue" and case.query:
        case.query = _revenue_range_in_order(case.query)
