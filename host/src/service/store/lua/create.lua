-- create: store a new pending job and queue it, unless the queue already holds the most jobs
-- allowed (`MAX_QUEUED_JOBS`): the check and the insert are one step, so concurrent creates
-- never pass the bound.
-- KEYS[1] job hash, KEYS[2] queue (list), KEYS[3] the owner's job index (zset id -> created
-- ms; written only when ARGV[4] is '1'), KEYS[4] the job's small upload (written only when
-- ARGV[5] is '1')
-- ARGV[1] most queued jobs (0: no limit), ARGV[2] job id, ARGV[3] created (ms),
-- ARGV[4] '1' when the job has an owner, ARGV[5] '1' when the upload is kept here,
-- ARGV[6] the upload's bytes, ARGV[7] its expiry (ms, a backstop: the job's end removes it),
-- ARGV[8..] the hash's field/value pairs
-- Returns 1, or 0 when the queue is full (nothing written).
local max = tonumber(ARGV[1])
if max > 0 and redis.call('LLEN', KEYS[2]) >= max then
  return 0
end
local fields = {}
for i = 8, #ARGV do
  fields[#fields + 1] = ARGV[i]
end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('RPUSH', KEYS[2], ARGV[2])
if ARGV[4] == '1' then
  redis.call('ZADD', KEYS[3], ARGV[3], ARGV[2])
end
if ARGV[5] == '1' then
  redis.call('SET', KEYS[4], ARGV[6], 'PX', ARGV[7])
end
return 1
