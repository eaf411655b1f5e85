-- claim_delivery: take the webhook delivery due first, leasing it (its score moves to the
-- lease end, so a dispatcher that dies mid-send leaves it to be sent again), and read its job
-- in the same step (the sender needs no second round trip before sending).
-- Each claim is counted in the job's `hook_claims`; a send that ends records `hook_sent`, so
-- claims beyond the recorded sends are claims whose sender stopped mid-send (killed, or cut
-- off past the lease) and whose receiver may already have the notification.
-- KEYS[1] hooks zset (id -> due ms)
-- ARGV[1] now (ms), ARGV[2] lease end (ms), ARGV[3] job key prefix
-- Returns {id, sends recorded, unrecorded earlier claims, job hash as a flat list} or false.
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 1)
if #ids == 0 then
  return false
end
local id = ids[1]
redis.call('ZADD', KEYS[1], ARGV[2], id)
local key = ARGV[3] .. id
local sent = tonumber(redis.call('HGET', key, 'hook_sent') or '0')
local claims = tonumber(redis.call('HGET', key, 'hook_claims') or '0')
local unrecorded = claims - sent
if unrecorded < 0 then
  unrecorded = 0
end
local fields = redis.call('HGETALL', key)
if #fields > 0 then
  redis.call('HINCRBY', key, 'hook_claims', 1)
end
return {id, sent, unrecorded, fields}
