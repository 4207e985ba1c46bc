-- upf_capture: puts the player's camera at a fixed list of views for tools/gamedata/minetest.sh.
--
-- Reads the settings upf_capture_views (how many views) and upf_capture_seed (their random
-- draw); writes <world>/upf_state ("view I" once the camera stands at view I, "done" at the
-- end) and reads <world>/upf_next (the number of the next view, written by the capture
-- script once it has its frame). Every run with the same world, seed and count puts the
-- camera at the same places: the views come from a PcgRandom and the terrain height from
-- the map generator's own noise (minetest.get_spawn_level), not from the loaded map.
-- Time of day is set per view and stands still (time_speed = 0 in the config); animated
-- textures are slowed so far that they stay on their first frame; the HUD is off.

local world = minetest.get_worldpath()
local nviews = tonumber(minetest.settings:get("upf_capture_views") or "8")
local seed = tonumber(minetest.settings:get("upf_capture_seed") or "1")

local function write_file(name, text)
	local f = io.open(world .. "/" .. name .. ".tmp", "w")
	f:write(text)
	f:close()
	os.rename(world .. "/" .. name .. ".tmp", world .. "/" .. name)
end

local function read_number(name)
	local f = io.open(world .. "/" .. name, "r")
	if not f then
		return nil
	end
	local v = tonumber(f:read("*l") or "")
	f:close()
	return v
end

-- Animated tiles: stay on frame 0 for the whole run (length in seconds of one cycle).
local function freeze_tiles(tiles)
	if type(tiles) ~= "table" then
		return tiles, false
	end
	local out, changed = {}, false
	for i, t in ipairs(tiles) do
		if type(t) == "table" and t.animation then
			local c = table.copy(t)
			c.animation = table.copy(t.animation)
			c.animation.length = 1e7
			out[i] = c
			changed = true
		else
			out[i] = t
		end
	end
	return out, changed
end

minetest.register_on_mods_loaded(function()
	for name, def in pairs(minetest.registered_nodes) do
		local tiles, a = freeze_tiles(def.tiles)
		local special, b = freeze_tiles(def.special_tiles)
		if a or b then
			minetest.override_item(name, { tiles = tiles, special_tiles = special })
		end
	end
end)

-- The views: ground height from the map generator, camera 2-24 nodes above it.
local views = nil
local function make_views()
	local rng = PcgRandom(seed)
	local list = {}
	local tries = 0
	local times = { 0.30, 0.42, 0.5, 0.58, 0.7 }
	while #list < nviews and tries < nviews * 50 do
		tries = tries + 1
		local x = rng:next(-2000, 2000)
		local z = rng:next(-2000, 2000)
		local y = minetest.get_spawn_level(x, z)
		local h = rng:next(2, 24)
		local yaw = rng:next(0, 359)
		local pitch = rng:next(4, 40)
		local tod = times[rng:next(1, #times)]
		if y then
			list[#list + 1] = { pos = { x = x + 0.5, y = y + h, z = z + 0.5 },
				yaw = math.rad(yaw), pitch = math.rad(pitch), time = tod }
		end
	end
	return list
end

local player_ref = nil
local prepare
local current = 0
local wait = 0

local emerging = false

local function go_to(i)
	local v = views[i]
	emerging = false
	minetest.set_timeofday(v.time)
	player_ref:set_pos(v.pos)
	player_ref:set_look_horizontal(v.yaw)
	player_ref:set_look_vertical(v.pitch)
	local f = io.open(world .. "/upf_views.txt", "a")
	f:write(string.format("view %d pos %.1f %.1f %.1f yaw %.4f pitch %.4f time %.2f\n", i,
		v.pos.x, v.pos.y, v.pos.z, v.yaw, v.pitch, v.time))
	f:close()
	write_file("upf_state", "view " .. i .. "\n")
end

-- Generates (or loads) the map around view i before the camera goes there, so that the
-- frame settles quickly: 112 nodes around it, 48 below and above.
prepare = function(i)
	local p = views[i].pos
	emerging = true
	minetest.emerge_area(vector.subtract(p, { x = 112, y = 48, z = 112 }),
		vector.add(p, { x = 112, y = 48, z = 112 }), function(_, _, remaining)
			if remaining == 0 and emerging and current == i then
				go_to(i)
			end
		end)
end

minetest.register_on_joinplayer(function(player)
	player_ref = player
	views = make_views()
	os.remove(world .. "/upf_next")
	os.remove(world .. "/upf_views.txt")
	player:hud_set_flags({ hotbar = false, healthbar = false, crosshair = false,
		wielditem = false, breathbar = false, minimap = false, minimap_radar = false })
	player:set_physics_override({ gravity = 0, speed = 0, jump = 0 })
	player:set_properties({ visual_size = { x = 0, y = 0 } })
	wait = 2
end)

minetest.register_globalstep(function(dtime)
	if not player_ref then
		return
	end
	if wait > 0 then
		wait = wait - dtime
		if wait <= 0 then
			current = 1
			prepare(current)
		end
		return
	end
	if current == 0 then
		return
	end
	local n = read_number("upf_next")
	if n and n > current then
		if n > #views then
			current = 0
			write_file("upf_state", "done\n")
			minetest.request_shutdown("", false, 0)
			return
		end
		current = n
		prepare(current)
	end
end)
