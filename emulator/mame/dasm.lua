-- TowerLab: MAME 0.251's disassembly of the whole :maincpu ROM (headless).
--
-- Run by emulator/mame.py as MAME's -autoboot_script with -debug -debugger none. The job file
-- named by $TOWERLAB_MAME_JOB gives "romsize N" and "dasm PATH"; the script runs the
-- debugger command "dasm PATH,0,N" (one line "c:p:pc: op MNEMONIC operand" per ROM byte, in
-- MAME's program order) and writes DONE to $TOWERLAB_MAME_OUT.
-- Pitfalls handled (docs/mame-oracle.md §5): errors are written as ERR lines; exit via os.exit(0).
if TOWERLAB_SCRIPT_LOADED then return end
TOWERLAB_SCRIPT_LOADED = true

local out = io.open(os.getenv("TOWERLAB_MAME_OUT"), "w")
local ok, err = pcall(function()
  local romsize, path = nil, nil
  for line in io.lines(os.getenv("TOWERLAB_MAME_JOB")) do
    local word, rest = line:match("^(%S+)%s*(.*)$")
    if word == "romsize" then romsize = tonumber(rest) end
    if word == "dasm" then path = rest end
  end
  if romsize == nil or path == nil then error("incomplete job") end
  manager.machine.debugger:command(string.format("dasm %s,0,%X", path, romsize))
end)
if not ok then out:write("ERR ", tostring(err), "\n") end
out:write("DONE\n")
out:close()
os.exit(0)
