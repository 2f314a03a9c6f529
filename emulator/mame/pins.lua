-- TowerLab: R/O pin changes of a TMS1000-family CPU in MAME 0.251 (headless), with scripted
-- keys: mbdtower (TMS1400) or mdndclab (TMS1100).
--
-- Run by emulator/mame.py as MAME's -autoboot_script with -debug -debugger none. The job file
-- named by $TOWERLAB_MAME_JOB holds "seconds S", "clock HZ", "romsize N" and "input T PORT
-- MASK VALUE" lines (T in emulated seconds, already placed mid-frame by the caller). A debugger registerpoint stops
-- before every TDO/TPC/RSTR/SETR (opcodes 0A-0D); the script records the fetch cycle, single-
-- steps the opcode and reads the driver's R and O latches. Output lines:
--   I r o              the pins after reset (cycle 0)
--   C cycle R|O value  a pin change (cycle = that opcode's fetch cycle + 3, docs/tms1400.md §3)
--   DONE               the run reached S seconds
-- Pitfalls handled (docs/mame-oracle.md §5): callbacks run under pcall; exit via os.exit(0).
-- MAME runs the autoboot script again after every (soft) reset in the same Lua state; only
-- the first run sets things up.
if TOWERLAB_SCRIPT_LOADED then return end
TOWERLAB_SCRIPT_LOADED = true

local machine = manager.machine
local cpu = machine.devices[":maincpu"]
local drv = machine.devices[":"]
local dbg = machine.debugger
local out = io.open(os.getenv("TOWERLAB_MAME_OUT"), "w")

local function fail(msg)
  out:write("ERR ", tostring(msg), "\n")
  out:close()
  os.exit(3)
end

local seconds, CLOCK, ROMSIZE = nil, nil, nil
local inputs = {}
for line in io.lines(os.getenv("TOWERLAB_MAME_JOB")) do
  local word, rest = line:match("^(%S+)%s*(.*)$")
  if word == "seconds" then
    seconds = tonumber(rest)
  elseif word == "clock" then
    CLOCK = tonumber(rest)
  elseif word == "romsize" then
    ROMSIZE = tonumber(rest)
  elseif word == "input" then
    local t, p, m, v = rest:match("^(%S+)%s+(%d+)%s+(%d+)%s+(%d+)$")
    inputs[#inputs + 1] = {t = tonumber(t), port = tonumber(p), mask = tonumber(m),
                           value = tonumber(v)}
  end
end
if seconds == nil or CLOCK == nil or ROMSIZE == nil then fail("incomplete job") end

local dr = emu.item(drv.items["0/m_r"])
local dout = emu.item(drv.items["0/m_o"])
local rom_address = emu.item(cpu.items["0/m_rom_address"])
local region = machine.memory.regions[":maincpu"]
-- key fields by port and mask (port:field(mask): several fields may share a name)
local fields = {}
for _, ev in ipairs(inputs) do
  local port = machine.ioport.ports[":IN." .. ev.port]
  local f = port and port:field(ev.mask)
  if f == nil then fail("no key at port IN." .. ev.port .. " mask " .. ev.mask) end
  fields[ev.port] = fields[ev.port] or {}
  fields[ev.port][ev.mask] = f
end

local buf = {}
local last_r, last_o = nil, nil
local step_cycle = nil   -- fetch cycle of the output opcode being single-stepped
local started = false

local function finish()
  out:write(table.concat(buf))
  out:write("DONE\n")
  out:close()
  os.exit(0)
end

-- Timed actions run in a coroutine on emulated time (emu.wait).
local function timeline()
  local now = 0.0
  for _, ev in ipairs(inputs) do
    if ev.t > now then
      emu.wait(ev.t - now)
      now = ev.t
    end
    fields[ev.port][ev.mask]:set_value(ev.value)
  end
  emu.wait(seconds - now)
  finish()
end

local function on_stop()
  local now = machine.time:as_double()
  if not started then
    started = true
    last_r, last_o = dr:read(0), dout:read(0)
    buf[#buf + 1] = string.format("I %X %X\n", last_r, last_o)
    dbg:command("rpset (b@curpc >= 0a) && (b@curpc <= 0d)")
    local co = coroutine.create(function()
      local ok, err = pcall(timeline)
      if not ok then fail(err) end
    end)
    local ok, err = coroutine.resume(co)
    if not ok then fail(err) end
  end
  if step_cycle ~= nil then
    local r, o = dr:read(0), dout:read(0)
    if r ~= last_r then
      buf[#buf + 1] = string.format("C %X R %X\n", step_cycle + 3, r)
      last_r = r
    end
    if o ~= last_o then
      buf[#buf + 1] = string.format("C %X O %X\n", step_cycle + 3, o)
      last_o = o
    end
    step_cycle = nil
    if #buf >= 4096 then
      out:write(table.concat(buf))
      buf = {}
    end
  end
  local op = region:read_u8(rom_address:read(0) & (ROMSIZE - 1))
  if op >= 0x0A and op <= 0x0D then
    step_cycle = math.floor(now * CLOCK + 0.5)
    cpu.debug:step(1)
  else
    dbg.execution_state = "run"
  end
end

emu.register_periodic(function()
  if dbg.execution_state ~= "stop" then return end
  local ok, err = pcall(on_stop)
  if not ok then fail(err) end
end)
