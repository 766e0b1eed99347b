-- The REST filter of the Envoy edge: what the local edge checks before and shapes after an RPC,
-- for the routes the generator binds to RPCs. Envoy's grpc_json_transcoder does the encoding;
-- this script does what the transcoder does not (see ADR 0024):
--   request:  the caller's role, query parameters, content type, JSON syntax, unknown JSON keys,
--             numbers in plain decimal notation only (bodies, path and query);
--   response: success status (201/204), bare arrays, and the one JSON error body.
--
-- envoy/src/lua-source.ts prepends four generated tables, and the nesting limit of JSON
-- bodies (max_depth, too_deep: services/edge/src/json-depth.ts):
--   messages     request message type -> accepted JSON key -> field kind, where a kind is
--                "s" scalar, "b" bool, "n<x>" number, "S" repeated scalar, "B" repeated bool,
--                "N<x>" repeated number (x as services/edge/src/plain-decimal.ts: "i" integer,
--                "u" unsigned integer, "I"/"U" their 64-bit kinds, "f" floating), "w" well-known
--                type (any JSON), "m:T" message T, "l:T" repeated message T, "M" map of
--                scalars, "M:T" map of messages T;
--   grpc_errors  gRPC code -> { HTTP status, code name, fixed message of server faults };
--   http_codes   HTTP status -> code name, for Envoy's own plain-text replies;
--   number_notations  number kind letter -> { sign, fraction, shape }: the notation a number of
--                that kind may have, and what it must be in refusals (plain-decimal.ts).
-- Each bound route carries its facts in metadata under this filter's name: status, identity,
-- unwrap, input, body ("object", "array", "raw" or "value"), body_type, query, path (the
-- path template, when it has variables).
-- A refusal route (another method of a known path, an unknown path under /api/) carries its
-- answer instead: refusal = { status, body (the error body's JSON), allow (the methods, if any) }.

local not_json = "request body is not valid JSON"

local function quote(text)
  local escaped = text:gsub('[%z\1-\31"\\]', function(c)
    if c == '"' then
      return '\\"'
    elseif c == "\\" then
      return "\\\\"
    elseif c == "\n" then
      return "\\n"
    elseif c == "\r" then
      return "\\r"
    elseif c == "\t" then
      return "\\t"
    end
    return string.format("\\u%04x", c:byte())
  end)
  return '"' .. escaped .. '"'
end

-- `message_json` is a JSON string literal (already quoted).
local function error_json(status, code, message_json)
  return '{"status":' .. status .. ',"code":"' .. code .. '","message":' .. message_json .. "}"
end

local function reject(handle, status, code, message)
  local headers = { [":status"] = tostring(status), ["content-type"] = "application/json" }
  if status == 401 then
    headers["www-authenticate"] = 'Bearer realm="commerce"'
  end
  handle:respond(headers, error_json(status, code, quote(message)))
end

-- JSON scanning. Syntax errors raise { message = ... } at once; schema errors (unknown keys) are
-- noted in `state.problem` and scanning goes on, so that invalid JSON is reported first, as the
-- local edge does (it parses before it decodes).

local function fail(message)
  error({ message = message }, 0)
end

local function skip_space(s, i)
  return s:find("[^ \t\r\n]", i) or (#s + 1)
end

local escapes = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }

local function utf8_of(cp)
  if cp < 0x80 then
    return string.char(cp)
  elseif cp < 0x800 then
    return string.char(0xC0 + math.floor(cp / 64), 0x80 + cp % 64)
  elseif cp < 0x10000 then
    return string.char(0xE0 + math.floor(cp / 4096), 0x80 + math.floor(cp / 64) % 64, 0x80 + cp % 64)
  end
  return string.char(
    0xF0 + math.floor(cp / 262144),
    0x80 + math.floor(cp / 4096) % 64,
    0x80 + math.floor(cp / 64) % 64,
    0x80 + cp % 64
  )
end

-- The code point of the \u escape at s[k] (the backslash), and the position after it: a
-- surrogate pair is one character beyond the Basic Multilingual Plane, a lone surrogate stands
-- for no character and becomes U+FFFD, so decoded text is always valid UTF-8.
local function escaped_code_point(s, k)
  local hex = s:match("^%x%x%x%x", k + 2)
  if hex == nil then
    fail(not_json)
  end
  local cp = tonumber(hex, 16)
  if cp >= 0xD800 and cp <= 0xDBFF then
    local low = s:match("^\\u(%x%x%x%x)", k + 6)
    local lo = low and tonumber(low, 16)
    if lo ~= nil and lo >= 0xDC00 and lo <= 0xDFFF then
      return 0x10000 + (cp - 0xD800) * 1024 + (lo - 0xDC00), k + 12
    end
    return 0xFFFD, k + 6
  elseif cp >= 0xDC00 and cp <= 0xDFFF then
    return 0xFFFD, k + 6
  end
  return cp, k + 6
end

-- The string that starts at s[i] (a quote): its text if `decode`, and the position after it.
-- Keys are decoded, escapes included, so "\u0072ole" is the key "role".
local function read_string(s, i, decode)
  local parts = {}
  local j = i + 1
  while true do
    local k = s:find('[%z\1-\31"\\]', j)
    if k == nil then
      fail(not_json)
    end
    local c = s:sub(k, k)
    if decode then
      parts[#parts + 1] = s:sub(j, k - 1)
    end
    if c == '"' then
      return decode and table.concat(parts) or nil, k + 1
    elseif c == "\\" then
      local e = s:sub(k + 1, k + 1)
      if e == "u" then
        local cp, after = escaped_code_point(s, k)
        if decode then
          parts[#parts + 1] = utf8_of(cp)
        end
        j = after
      elseif escapes[e] ~= nil then
        if decode then
          parts[#parts + 1] = escapes[e]
        end
        j = k + 2
      else
        fail(not_json)
      end
    else
      fail(not_json)
    end
  end
end

local function digits(s, i)
  local _, e = s:find("^%d+", i)
  if e == nil then
    fail(not_json)
  end
  return e + 1
end

local function read_number(s, i)
  local j = i
  if s:byte(j) == 45 then -- -
    j = j + 1
  end
  if s:byte(j) == 48 then -- 0
    j = j + 1
  else
    j = digits(s, j)
  end
  if s:byte(j) == 46 then -- .
    j = digits(s, j + 1)
  end
  local c = s:byte(j)
  if c == 101 or c == 69 then -- e E
    j = j + 1
    c = s:byte(j)
    if c == 43 or c == 45 then
      j = j + 1
    end
    j = digits(s, j)
  end
  return j
end

-- Plain decimal notation, the walk of isPlainDecimal in services/edge/src/plain-decimal.ts
-- over the same table (number_notations, generated from it): digits without a leading zero, a
-- minus sign where the kind has `sign` (never on an integer zero), a fraction where it has
-- `fraction`; never an exponent or "+".
local function plain_decimal(text, letter)
  local rule = number_notations[letter]
  local negative = rule.sign and text:sub(1, 1) == "-"
  local whole, rest = (negative and text:sub(2) or text):match("^(%d+)(.*)$")
  if whole == nil or (#whole > 1 and whole:sub(1, 1) == "0") then
    return false
  end
  if rest == "" then
    return not (negative and whole == "0" and not rule.fraction)
  end
  return rule.fraction and rest:match("^%.%d+$") ~= nil
end

local function parameter_notation(name, letter)
  return "parameter " .. quote(name) .. " must be " .. number_notations[letter].shape
end

-- A numeric field's value must be a JSON number (64-bit integers: or a string of digits).
local function note_number(state, name, letter)
  state.number_problem = state.number_problem
    or ("field " .. quote(name) .. " must be a JSON number: " .. number_notations[letter].shape)
end

local scan_value

local function kind_type(kind, prefix)
  if kind:sub(1, #prefix) == prefix then
    return kind:sub(#prefix + 1)
  end
  return nil
end

-- An object member's key at s[i] (a JSON string, decoded when `decode`), and the position of
-- its value after the colon.
local function read_key(s, i, decode)
  if s:byte(i) ~= 34 then -- "
    fail(not_json)
  end
  local key
  key, i = read_string(s, i, decode)
  i = skip_space(s, i)
  if s:byte(i) ~= 58 then -- :
    fail(not_json)
  end
  return key, skip_space(s, i + 1)
end

-- After an element of an object or array at s[i]: the position of the next element and false,
-- or the position after `closer` and true where the container ends.
local function next_element(s, i, closer)
  local c = s:byte(i)
  if c == 44 then -- ,
    return skip_space(s, i + 1), false
  elseif c == closer then
    return i + 1, true
  end
  fail(not_json)
end

local function scan_object(s, i, kind, depth, state)
  local type_name = kind_type(kind, "m:")
  local fields = type_name and messages[type_name]
  local values = kind_type(kind, "M:")
  values = values and ("m:" .. values) or "w"
  i = skip_space(s, i + 1)
  if s:byte(i) == 125 then -- }
    return i + 1
  end
  while true do
    local key
    key, i = read_key(s, i, fields ~= nil)
    local field_kind = values
    if fields ~= nil then
      field_kind = fields[key]
      if field_kind == nil then
        field_kind = "w"
        state.problem = state.problem
          or ("invalid request: cannot decode message " .. type_name .. " from JSON: key " .. quote(key) .. " is unknown")
      end
    end
    local ended
    i, ended = next_element(s, skip_space(s, scan_value(s, i, field_kind, depth + 1, state, key)), 125)
    if ended then
      return i
    end
  end
end

local function scan_array(s, i, kind, depth, state, name)
  local item = kind_type(kind, "l:")
  if item ~= nil then
    item = "m:" .. item
  elseif kind:sub(1, 1) == "N" then
    item = "n" .. kind:sub(2, 2)
  else
    item = "w"
  end
  i = skip_space(s, i + 1)
  if s:byte(i) == 93 then -- ]
    return i + 1
  end
  while true do
    local ended
    i, ended = next_element(s, skip_space(s, scan_value(s, i, item, depth + 1, state, name)), 93)
    if ended then
      return i
    end
  end
end

-- Scans the value at s[i] where a field of `kind` (named `name`) is expected; returns the
-- position after it. A number field must hold a number in plain decimal notation (or null);
-- a value of another JSON type than any other kind expects is left to the transcoder.
-- `depth` is the number of objects and arrays around the value; at most max_depth may be open
-- at once, so this recursion stays shallow whatever the body.
scan_value = function(s, i, kind, depth, state, name)
  local number = kind:sub(1, 1) == "n" and kind:sub(2, 2) or nil
  local c = s:byte(i)
  if (c == 123 or c == 91) and depth >= max_depth then
    fail(too_deep)
  end
  if number ~= nil and (c == 123 or c == 91) then
    note_number(state, name, number)
  end
  if c == 123 then -- {
    return scan_object(s, i, kind, depth, state)
  elseif c == 91 then -- [
    return scan_array(s, i, kind, depth, state, name)
  elseif c == 34 then
    local _, after = read_string(s, i, false)
    if number ~= nil and not ((number == "I" or number == "U") and plain_decimal(s:sub(i + 1, after - 2), number)) then
      note_number(state, name, number)
    end
    return after
  elseif c == 45 or (c ~= nil and c >= 48 and c <= 57) then
    local after = read_number(s, i)
    if number ~= nil and not plain_decimal(s:sub(i, after - 1), number) then
      note_number(state, name, number)
    end
    return after
  elseif s:sub(i, i + 3) == "null" then
    return i + 4
  elseif s:sub(i, i + 3) == "true" then
    if number ~= nil then
      note_number(state, name, number)
    end
    return i + 4
  elseif s:sub(i, i + 4) == "false" then
    if number ~= nil then
      note_number(state, name, number)
    end
    return i + 5
  end
  fail(not_json)
end

-- Checks a whole request body; returns the problem to report (text) and whether it is one of
-- notation (reported before the path's and query's problems, as the local edge does), or nil.
local function check_body(s, route)
  local state = {}
  local i = skip_space(s, 1)
  local kind, shape = "w", nil
  if route.body == "object" then
    kind = "m:" .. route.body_type
    if s:byte(i) ~= 123 then
      kind, shape = "w", "request body must be a JSON object"
    end
  elseif route.body == "array" then
    kind = "l:" .. route.body_type
    if s:byte(i) ~= 91 then
      kind, shape = "w", "request body must be a JSON array"
    end
  end
  i = skip_space(s, scan_value(s, i, kind, 0, state, ""))
  if i <= #s then
    fail(not_json)
  end
  if shape ~= nil then
    return shape, false
  end
  if state.number_problem ~= nil then
    return state.number_problem, true
  end
  return state.problem, false
end

local function is_json_type(content_type)
  local t = content_type:lower()
  local rest = t:match("^application/json(.*)$") or t:match("^application/[%w_.+-]+%+json(.*)$")
  return rest ~= nil and rest:match("^[%w_]") == nil
end

local function percent_decode(text)
  return (text:gsub("%%(%x%x)", function(hex)
    return string.char(tonumber(hex, 16))
  end))
end

-- Query parameters, as URLSearchParams reads them: '+' is a space, bad escapes stay as they are.
local function unescape(text)
  return percent_decode((text:gsub("%+", " ")))
end

local function parse_query(query)
  local pairs_found, order, counts = {}, {}, {}
  for pair in query:gmatch("[^&]+") do
    local eq = pair:find("=", 1, true)
    local raw_name = eq and pair:sub(1, eq - 1) or pair
    local name = unescape(raw_name)
    local value = eq and unescape(pair:sub(eq + 1)) or ""
    pairs_found[#pairs_found + 1] = { raw = pair, raw_name = raw_name, name = name, value = value }
    if counts[name] == nil then
      order[#order + 1] = name
      counts[name] = 0
    end
    counts[name] = counts[name] + 1
  end
  return pairs_found, order, counts
end

local function kind_of_parameter(input, name)
  local fields = messages[input]
  local kind
  for segment in (name .. "."):gmatch("([^.]*)%.") do
    if fields == nil then
      return nil
    end
    kind = fields[segment]
    if kind == nil then
      return nil
    end
    local nested = kind_type(kind, "m:")
    fields = nested and messages[nested]
  end
  return kind
end

local bool_text = { ["true"] = "true", ["1"] = "true", ["false"] = "false", ["0"] = "false" }

-- Checks the query; returns the problem to report, or nil and the path to send on (booleans
-- spelled as the transcoder reads them).
local function check_query(route, path)
  local at = path:find("?", 1, true)
  if at == nil then
    return nil, path
  end
  local pairs_found, order, counts = parse_query(path:sub(at + 1))
  local kinds = {}
  for _, name in ipairs(order) do
    local kind = route.query and kind_of_parameter(route.input, name) or nil
    if kind == nil then
      return 'unknown query parameter "' .. name .. '"'
    end
    local first = kind:sub(1, 1)
    if first == "m" or first == "l" or first == "M" or first == "w" then
      return 'query parameter "' .. name .. '" cannot be set from text'
    end
    if (first == "s" or first == "b" or first == "n") and counts[name] > 1 then
      return 'query parameter "' .. name .. '" must appear once'
    end
    if first == "n" or first == "N" then
      for _, pair in ipairs(pairs_found) do
        if pair.name == name and not plain_decimal(pair.value, kind:sub(2, 2)) then
          return parameter_notation(name, kind:sub(2, 2))
        end
      end
    end
    -- An empty value would reach a field without presence as no value at all: refused, as
    -- the local edge does (booleans below).
    if first == "s" or first == "S" then
      for _, pair in ipairs(pairs_found) do
        if pair.name == name and pair.value == "" then
          return 'parameter "' .. name .. '" must not be empty'
        end
      end
    end
    kinds[name] = first
  end
  local rewritten, changed = {}, false
  for _, pair in ipairs(pairs_found) do
    local kind = kinds[pair.name]
    if kind == "b" or kind == "B" then
      local value = bool_text[pair.value]
      if value == nil then
        return 'parameter "' .. pair.name .. '" must be true or false'
      end
      changed = changed or value ~= pair.value
      rewritten[#rewritten + 1] = pair.raw_name .. "=" .. value
    else
      rewritten[#rewritten + 1] = pair.raw
    end
  end
  if not changed then
    return nil, path
  end
  return nil, path:sub(1, at) .. table.concat(rewritten, "&")
end

-- Checks the path variables bound to number fields; returns the problem to report, or nil.
local function check_path(route, path)
  if route.path == nil then
    return nil
  end
  local segments = {}
  for segment in (path:match("^[^?]*")):gmatch("[^/]+") do
    segments[#segments + 1] = segment
  end
  local index = 0
  for part in route.path:gmatch("[^/]+") do
    index = index + 1
    local name = part:match("^{([%w_.]+)}$") or part:match("^{([%w_.]+)=%*}$")
    local kind = name and kind_of_parameter(route.input, name)
    if kind ~= nil and kind:sub(1, 1) == "n" then
      local letter = kind:sub(2, 2)
      if not plain_decimal(percent_decode(segments[index] or ""), letter) then
        return parameter_notation(name, letter)
      end
    end
  end
  return nil
end

local function route_of(handle)
  local metadata = handle:metadata()
  local status = metadata:get("status")
  if status == nil then
    return nil
  end
  return {
    status = status,
    identity = metadata:get("identity"),
    unwrap = metadata:get("unwrap"),
    input = metadata:get("input"),
    body = metadata:get("body"),
    body_type = metadata:get("body_type"),
    query = metadata:get("query"),
    path = metadata:get("path"),
  }
end

-- What the local edge demands of a token beyond its signature: `exp` in the future and `nbf`
-- (if any) not, to the second; `sub` a non-empty string; `role` CUSTOMER or ADMIN; `uid` a
-- positive integer of at most 32 bits (the account's user id).
local function acceptable_token(handle)
  local verified = handle:streamInfo():dynamicMetadata():get("envoy.filters.http.jwt_authn")
  local claims = verified and verified["jwt_payload"]
  if type(claims) ~= "table" then
    return false
  end
  local now = os.time()
  local exp, nbf, sub, role, uid = claims["exp"], claims["nbf"], claims["sub"], claims["role"], claims["uid"]
  return type(exp) == "number"
    and exp > now
    and (nbf == nil or (type(nbf) == "number" and nbf <= now))
    and type(sub) == "string"
    and sub ~= ""
    and (role == "CUSTOMER" or role == "ADMIN")
    and type(uid) == "number"
    and uid == math.floor(uid)
    and uid > 0
    and uid <= 4294967295
end

-- The answer of a refusal route, given whole in its metadata (envoy/src/rest-routes.ts).
local function refuse(handle)
  local refusal = handle:metadata():get("refusal")
  if refusal == nil then
    return
  end
  local headers = { [":status"] = tostring(refusal.status), ["content-type"] = "application/json" }
  if refusal.allow ~= nil then
    headers["allow"] = refusal.allow
  end
  handle:respond(headers, refusal.body)
end

function envoy_on_request(handle)
  local route = route_of(handle)
  if route == nil then
    refuse(handle)
    return
  end
  local headers = handle:headers()
  if route.identity and not acceptable_token(handle) then
    reject(handle, 401, "UNAUTHENTICATED", "a valid bearer token is required")
    return
  end

  local problem, notation
  if route.body ~= nil and route.body ~= "raw" then
    local content_type = headers:get("content-type")
    local body = handle:body()
    headers = handle:headers() -- body() yields; take the headers again after it
    local text = body and body:getBytes(0, body:length()) or ""
    if text == "" then
      reject(handle, 400, "INVALID_ARGUMENT", "a JSON request body is required")
      return
    end
    if content_type ~= nil and not is_json_type(content_type) then
      reject(handle, 400, "INVALID_ARGUMENT", 'content type must be application/json, got "' .. content_type .. '"')
      return
    end
    local ok, result, is_notation = pcall(check_body, text, route)
    if not ok then
      if type(result) ~= "table" then
        error(result, 0)
      end
      reject(handle, 400, "INVALID_ARGUMENT", result.message)
      return
    end
    problem, notation = result, is_notation
  end

  -- The local edge's order: the body's notation, then the path, then the query, then the
  -- body's keys (protobuf decoding comes last there).
  local path_problem = check_path(route, headers:get(":path"))
  local query_problem, path = check_query(route, headers:get(":path"))
  if not notation then
    problem = path_problem or query_problem or problem
  end
  if problem ~= nil then
    reject(handle, 400, "INVALID_ARGUMENT", problem)
    return
  end
  if path ~= headers:get(":path") then
    headers:replace(":path", path)
  end
end

-- Response side.

-- The raw JSON text of the top-level keys of object `s`, or nil if `s` is not a JSON object.
local function top_level(s)
  local ok, found = pcall(function()
    local values = {}
    local i = skip_space(s, 1)
    if s:byte(i) ~= 123 then
      return nil
    end
    i = skip_space(s, i + 1)
    if s:byte(i) == 125 then
      return values
    end
    while true do
      local key
      key, i = read_key(s, i, true)
      local after = scan_value(s, i, "w", 1, {})
      values[key] = s:sub(i, after - 1)
      local ended
      i, ended = next_element(s, skip_space(s, after), 125)
      if ended then
        return values
      end
    end
  end)
  return ok and found or nil
end

local function replace_body(handle, body, text)
  body:setBytes(text)
  local headers = handle:headers()
  headers:replace("content-length", tostring(#text))
  return headers
end

-- An error answer: the transcoder's gRPC status JSON ({"code":5,"message":...}) or a plain-text
-- reply of Envoy's becomes the error body; a body already in that shape stays as it is.
local function shape_error(handle, status)
  local body = handle:body(true)
  local text = body and body:getBytes(0, body:length()) or ""
  if text:sub(1, 10) == '{"status":' then
    return
  end
  local headers
  local fields = top_level(text)
  local code = fields and tonumber(fields["code"] or "")
  if code ~= nil then
    local known = grpc_errors[code] or grpc_errors[2]
    local message = known[3] and quote(known[3]) or fields["message"] or quote("")
    headers = replace_body(handle, body, error_json(known[1], known[2], message))
    headers:replace(":status", tostring(known[1]))
  else
    local name = http_codes[status] or "UNKNOWN"
    local message = status < 500 and text or "internal error"
    headers = replace_body(handle, body, error_json(status, name, quote(message)))
  end
  headers:replace("content-type", "application/json")
end

function envoy_on_response(handle)
  -- Only what this answer needs is read from the route: most are successes of status 200.
  local metadata = handle:metadata()
  local success = metadata:get("status")
  if success == nil then
    return
  end
  local headers = handle:headers()
  local status = tonumber(headers:get(":status"))
  headers:remove("grpc-status")
  headers:remove("grpc-message")
  if status >= 400 then
    shape_error(handle, status)
    return
  end
  if success == 204 then
    local body = handle:body()
    if body ~= nil then
      body:setBytes("")
    end
    headers = handle:headers()
    headers:replace(":status", "204")
    headers:remove("content-length")
    headers:remove("content-type")
    return
  end
  local unwrap = metadata:get("unwrap")
  if unwrap ~= nil then
    local body = handle:body(true)
    local fields = top_level(body:getBytes(0, body:length())) or {}
    headers = replace_body(handle, body, fields[unwrap] or "[]")
  end
  if success ~= 200 then
    headers:replace(":status", tostring(success))
  end
end
