-- announce (prepended to every script that changes what GET shows of a job): tell every API
-- process that job `id` changed (`service::events`), in the same script as the change, so the
-- message carries exactly the state the change made and costs no extra round trip. The
-- message on the channel (always the script's last ARGV) is "<id>\n<JSON array of the hash's
-- fields and values>", with the job's `event_seq` raised first: messages and reads of one job
-- are ordered by it. A job that no longer exists is announced as "<id>\n".
local function announce(key, id)
  local channel = ARGV[#ARGV]
  if redis.call('EXISTS', key) == 0 then
    redis.call('PUBLISH', channel, id .. '\n')
    return
  end
  redis.call('HINCRBY', key, 'event_seq', 1)
  redis.call('PUBLISH', channel, id .. '\n' .. cjson.encode(redis.call('HGETALL', key)))
end
