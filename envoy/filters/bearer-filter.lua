-- Spells the bearer scheme the one way jwt_authn looks for. The local edge reads the scheme
-- case-insensitively and allows spaces and trailing whitespace around the token; jwt_authn
-- matches a fixed prefix. A header that is not a bearer token is removed, so that protected
-- routes answer 401 (no token) and public ones ignore it, as on the local edge.
function envoy_on_request(handle)
  local headers = handle:headers()
  local value = headers:get("authorization")
  if value == nil then
    return
  end
  local token = value:match("^[Bb][Ee][Aa][Rr][Ee][Rr] +([%w_%-%.]+)%s*$")
  if token == nil then
    headers:remove("authorization")
  elseif value ~= "Bearer " .. token then
    headers:replace("authorization", "Bearer " .. token)
  end
end
