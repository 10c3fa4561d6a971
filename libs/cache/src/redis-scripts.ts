/**
 * Lua scripts: each runs atomically in Redis, so read-modify-write needs no WATCH (which a shared,
 * pipelined connection could not use safely anyway).
 */

/** KEYS[1] counter; ARGV amount, windowMs. Returns { count, resetInMs }. See HotStore.incrWindow. */
export const INCR_WINDOW = `
local amount = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
if amount == 0 then
  local v = redis.call('GET', KEYS[1])
  if not v then return {0, window} end
  local n = tonumber(v)
  if not n or string.find(v, '^-?%d+$') == nil then return redis.error_reply('ERR value is not an integer or out of range') end
  local t = redis.call('PTTL', KEYS[1])
  if t < 0 then t = window end
  return {n, t}
end
local c = redis.call('INCRBY', KEYS[1], amount)
local t = redis.call('PTTL', KEYS[1])
if t < 0 then
  redis.call('PEXPIRE', KEYS[1], window)
  t = window
end
return {c, t}
`;

/**
 * KEYS[1] hash; ARGV field, delta. Exact decimal addition on digit strings (Lua numbers are
 * doubles, HINCRBYFLOAT is a long double: neither is exact). Returns the canonical sum.
 */
export const HINCR_DECIMAL = `
local function parse(s)
  local neg = false
  local c = string.sub(s, 1, 1)
  if c == '-' or c == '+' then
    neg = c == '-'
    s = string.sub(s, 2)
  end
  local ip, fp = string.match(s, '^(%d*)%.?(%d*)$')
  if ip == nil or (ip == '' and fp == '') then return nil end
  ip = string.gsub(ip, '^0+', '')
  fp = string.gsub(fp, '0+$', '')
  return neg, ip, fp
end

-- a and b: digit strings of equal length.
local function add(a, b)
  local out, carry = {}, 0
  for i = #a, 1, -1 do
    local d = string.byte(a, i) + string.byte(b, i) - 96 + carry
    if d >= 10 then d = d - 10; carry = 1 else carry = 0 end
    out[i] = d
  end
  local s = table.concat(out)
  if carry == 1 then s = '1' .. s end
  return s
end

-- a >= b, equal length.
local function sub(a, b)
  local out, borrow = {}, 0
  for i = #a, 1, -1 do
    local d = string.byte(a, i) - string.byte(b, i) - borrow
    if d < 0 then d = d + 10; borrow = 1 else borrow = 0 end
    out[i] = d
  end
  return table.concat(out)
end

local current = redis.call('HGET', KEYS[1], ARGV[1]) or '0'
local an, ai, af = parse(current)
if an == nil then return redis.error_reply('ERR hash value is not a decimal') end
local bn, bi, bf = parse(ARGV[2])
if bn == nil then return redis.error_reply('ERR delta is not a decimal') end

local scale = math.max(#af, #bf)
af = af .. string.rep('0', scale - #af)
bf = bf .. string.rep('0', scale - #bf)
local width = math.max(#ai, #bi)
local a = string.rep('0', width - #ai) .. ai .. af
local b = string.rep('0', width - #bi) .. bi .. bf

local neg, mag
if an == bn then
  neg, mag = an, add(a, b)
elseif a >= b then
  neg, mag = an, sub(a, b)
else
  neg, mag = bn, sub(b, a)
end

local ip = string.gsub(string.sub(mag, 1, #mag - scale), '^0+', '')
local fp = string.gsub(string.sub(mag, #mag - scale + 1), '0+$', '')
if ip == '' then ip = '0' end
local out = ip
if fp ~= '' then out = out .. '.' .. fp end
if out == '0' then neg = false end
if neg then out = '-' .. out end
redis.call('HSET', KEYS[1], ARGV[1], out)
return out
`;
