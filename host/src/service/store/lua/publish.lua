-- publish: tell every API process that a job changed (`service::events`). The message is
-- "<id>\n<JSON array of the hash's fields and values>", with the job's `event_seq` raised
-- first: messages and reads of one job are ordered by it. A job that no longer exists is
-- announced as "<id>\n" and not re-created.
-- KEYS[1] job hash
-- ARGV[1] channel, ARGV[2] job id
-- Returns 1, or 0 for a job that is gone.
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('PUBLISH', ARGV[1], ARGV[2] .. '\n')
  return 0
end
redis.call('HINCRBY', KEYS[1], 'event_seq', 1)
local fields = redis.call('HGETALL', KEYS[1])
redis.call('PUBLISH', ARGV[1], ARGV[2] .. '\n' .. cjson.encode(fields))
return 1
