-- TowerLab: per-instruction state trace of a TMS1000-family CPU in MAME 0.251 (headless):
-- mbdtower (TMS1400), mdndclab (TMS1100) or simon (TMS1000).
--
-- Run by emulator/mame.py as MAME's -autoboot_script with -debug -debugger none. The job file
-- named by $TOWERLAB_MAME_JOB gives "steps", "clock" (Hz), "romsize", "ramsize" (nibbles),
-- "ports" (input ports IN.0..IN.n-1), optionally "switches" (ports holding configuration
-- switches, left at their defaults: simon's IN.0 and IN.3) and the ROM images; the first one is the romset's ROM file, the others are
-- written into the :maincpu region before a soft reset. For each image the script
-- single-steps the CPU and writes, before every instruction, one line
--   n cycle ca pa pc op a x y status sl pb cb r o        (hex)
-- plus "key n k" after every opcode 08-0F (the K value that opcode read, from the CKI bus).
-- With "ramevery N" in the job it also writes "ram n hhhh..." before every instruction n that
-- is a multiple of N and after the last one (n = steps): the RAM, one hex digit per nibble,
-- address 0 first (a trace without RAM could hide a wrong write until it is read).
-- Key masks (port IN.p, K bit b = mask bit 4p + b): the first is set at the start, each
-- next one half a frame after the 1/60 s frame boundary that handed the previous one to the
-- CPU (MAME hands input changes over at frame boundaries, docs/mame-oracle.md §5.8).
-- Pitfalls handled (docs/mame-oracle.md §5): every callback runs under pcall; the script leaves
-- with os.exit(0) after closing its file and writing DONE (the 0.251 shutdown segfault).
-- MAME runs the autoboot script again after every (soft) reset in the same Lua state; only
-- the first run sets things up.
if TOWERLAB_SCRIPT_LOADED then return end
TOWERLAB_SCRIPT_LOADED = true

local machine = manager.machine
local cpu = machine.devices[":maincpu"]
local dbg = machine.debugger
local job_path = os.getenv("TOWERLAB_MAME_JOB")
local out = io.open(os.getenv("TOWERLAB_MAME_OUT"), "w")

local function fail(msg)
  out:write("ERR ", tostring(msg), "\n")
  out:close()
  os.exit(3)
end

local function item(name)
  local entry = cpu.items["0/" .. name]
  if entry == nil then fail("no save item " .. name) end
  return emu.item(entry)
end

local I = {}
for _, k in ipairs({"m_a", "m_x", "m_y", "m_ca", "m_pa", "m_pc", "m_pb", "m_cb", "m_status",
                    "m_status_latch", "m_r", "m_o", "m_cki_bus", "m_rom_address", "m_sr",
                    "m_ps", "m_cs"}) do
  I[k] = item(k)
end
local region = machine.memory.regions[":maincpu"]
local data = cpu.spaces["data"]
if region == nil then fail("no :maincpu region") end

-- read the job
local steps, CLOCK, ROMSIZE, PORTS, RAMSIZE = 0, nil, nil, 0, 128
local RAMEVERY = 0
local switches = {}
local progs = {}
for line in io.lines(job_path) do
  local word, rest = line:match("^(%S+)%s*(.*)$")
  if word == "steps" then
    steps = tonumber(rest)
  elseif word == "clock" then
    CLOCK = tonumber(rest)
  elseif word == "romsize" then
    ROMSIZE = tonumber(rest)
  elseif word == "ports" then
    PORTS = tonumber(rest)
  elseif word == "ramsize" then
    RAMSIZE = tonumber(rest)
  elseif word == "ramevery" then
    RAMEVERY = tonumber(rest)
  elseif word == "switches" then
    for p in rest:gmatch("%d+") do switches[tonumber(p)] = true end
  elseif word == "rom" then
    progs[#progs + 1] = {rom = rest, keys = {}}
  elseif word == "keys" then
    local keys = progs[#progs].keys
    for m in rest:gmatch("%x+") do
      keys[#keys + 1] = m
    end
  end
end
if #progs == 0 or steps <= 0 or CLOCK == nil or ROMSIZE == nil then
  fail("incomplete job " .. tostring(job_path))
end
if region.size ~= ROMSIZE then fail("ROM region is " .. region.size .. " bytes, not " .. ROMSIZE) end

-- key fields by port and K bit (port:field(mask): several fields may share a name)
local fields = {}
for p = 0, PORTS - 1 do
  local port = machine.ioport.ports[":IN." .. p]
  if port == nil then fail("no input port :IN." .. p) end
  fields[p] = {}
  if not switches[p] then
    for b = 0, 3 do fields[p][b] = port:field(1 << b) end
  end
end
-- a mask is a hex string (up to 72 bits): digit i from the right = port i's four K bits
local function set_keys(hex)
  local len = #hex
  for p = 0, PORTS - 1 do
    local digit = (p < len) and tonumber(hex:sub(len - p, len - p), 16) or 0
    for b = 0, 3 do
      local f = fields[p][b]
      if f ~= nil then f:set_value((digit >> b) & 1) end
    end
  end
end
local prog = 0          -- index of the running program (1-based), 0 = not started
local n = 0             -- instructions logged in this program
local base = 0.0        -- machine time (s) of the reset that started this program
local next_keys_at = 0.0 -- time (s) from which the next key mask is applied
local key_index = 1
local pending_k = false
local buf = {}

local function start(index)
  local p = progs[index]
  if index > 1 then
    -- load the image, clear what reset leaves alone (docs/tms1400.md §11), reset
    local rom = p.rom
    for a = 0, ROMSIZE - 1 do
      region:write_u8(a, tonumber(rom:sub(2 * a + 1, 2 * a + 2), 16))
    end
    for a = 0, RAMSIZE - 1 do data:write_u8(a, 0) end
    for _, k in ipairs({"m_a", "m_x", "m_y", "m_status_latch", "m_sr", "m_ps", "m_cs"}) do
      I[k]:write(0, 0)
    end
    machine:soft_reset()
  end
  prog = index
  n = 0
  base = (index > 1) and machine.time:as_double() or 0.0
  key_index = 1
  if #p.keys > 0 then set_keys(p.keys[1]) end
  next_keys_at = (math.floor(machine.time:as_double() * 60) + 1.5) / 60
  out:write("prog ", index - 1, "\n")
end

local function ram_line()
  local digits = {}
  for a = 0, RAMSIZE - 1 do digits[a + 1] = string.format("%X", data:read_u8(a) & 15) end
  return string.format("ram %X %s\n", n, table.concat(digits))
end

local function finish()
  out:write(table.concat(buf))
  buf = {}
  out:write("end ", prog - 1, "\n")
end

local function on_stop()
  if prog == 0 then
    start(1)
  end
  local now = machine.time
  if pending_k then
    buf[#buf + 1] = string.format("key %X %X\n", n - 1, I.m_cki_bus:read(0))
    pending_k = false
  end
  if n >= steps then
    if RAMEVERY > 0 then buf[#buf + 1] = ram_line() end
    finish()
    if prog >= #progs then
      set_keys("0")
      out:write("DONE\n")
      out:close()
      os.exit(0)
    end
    start(prog + 1)
    cpu.debug:step(1)
    return
  end
  local t = now:as_double()
  local keys = progs[prog].keys
  if t >= next_keys_at and key_index < #keys then
    key_index = key_index + 1
    set_keys(keys[key_index])
    next_keys_at = (math.floor(t * 60) + 1.5) / 60
  end
  local cycle = math.floor((t - base) * CLOCK + 0.5)
  local op = region:read_u8(I.m_rom_address:read(0) & (ROMSIZE - 1))
  buf[#buf + 1] = string.format("%X %X %X %X %X %X %X %X %X %X %X %X %X %X %X\n",
    n, cycle, I.m_ca:read(0), I.m_pa:read(0), I.m_pc:read(0), op,
    I.m_a:read(0), I.m_x:read(0), I.m_y:read(0), I.m_status:read(0),
    I.m_status_latch:read(0), I.m_pb:read(0), I.m_cb:read(0), I.m_r:read(0), I.m_o:read(0))
  if RAMEVERY > 0 and n % RAMEVERY == 0 then buf[#buf + 1] = ram_line() end
  if #buf >= 4096 then
    out:write(table.concat(buf))
    buf = {}
  end
  pending_k = (op >= 0x08 and op <= 0x0F)
  n = n + 1
  cpu.debug:step(1)
end

emu.register_periodic(function()
  if dbg.execution_state ~= "stop" then return end
  local ok, err = pcall(on_stop)
  if not ok then fail(err) end
end)
