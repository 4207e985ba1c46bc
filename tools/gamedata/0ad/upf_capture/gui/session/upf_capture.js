// upf_capture.js: puts the 0 A.D. camera at a fixed list of views for tools/gamedata/0ad.sh.
//
// Loaded into the game session with the session's other scripts (gui/session/ of this mod).
// Reads upf/settings.json of this mod ({"views": N, "seed": S}, written by 0ad.sh before the
// game starts) and, every 250 ms, upf/next.txt (the number of the next view, written by
// 0ad.sh once it has its frame). Prints "upf_capture view I" to standard output once the
// camera stands at view I and three frames from there have run, "upf_capture done" after
// the last. Every run with the same map,
// seed and count puts the camera at the same places: the views come from a seeded generator
// of our own (a 32-bit xorshift, Marsaglia 2003), not from Math.random. The simulation is
// paused (units stand still), the GUI is hidden, silhouettes are off.

var g_UpfCapture = { "views": [], "current": 0 };

// xorshift32 (G. Marsaglia, "Xorshift RNGs", J. Stat. Software 8(14), 2003): returns a
// function giving numbers in [0, 1).
function upfCaptureRandom(seed)
{
	let s = (seed * 2654435761 + 1) >>> 0 || 1;
	return () => {
		s ^= s << 13; s >>>= 0;
		s ^= s >>> 17;
		s ^= s << 5; s >>>= 0;
		return s / 4294967296;
	};
}

function upfCaptureViews(count, seed, mapSize)
{
	let rnd = upfCaptureRandom(seed);
	let views = [];
	for (let i = 0; i < count; ++i)
	{
		// Inside the central 60 % of the map (round maps leave their corners empty), looking
		// within 75 degrees of the map's centre (at rotY 0 the camera looks along +z), so that
		// little of the black beyond the map's edge is in view.
		let angle = rnd() * 2 * Math.PI;
		let radius = Math.sqrt(rnd()) * 0.3 * mapSize;
		let x = mapSize / 2 + radius * Math.cos(angle);
		let z = mapSize / 2 + radius * Math.sin(angle);
		let towards = Math.atan2(mapSize / 2 - x, mapSize / 2 - z);
		views.push({
			"x": x,
			"z": z,
			"rotX": (30 + rnd() * 28) * Math.PI / 180,
			"rotY": towards + (rnd() * 150 - 75) * Math.PI / 180,
			"zoom": 50 + rnd() * 110
		});
	}
	return views;
}

// Puts the camera at view i and announces it once three more ticks (frames) have run: the
// first frame at a new place can take seconds (loading what comes into view), and until it
// is drawn the screen still shows the previous view, as still as a finished one.
function upfCaptureGoTo(i)
{
	let v = g_UpfCapture.views[i - 1];
	Engine.SetCameraData(v.x, 0, v.z, v.rotX, v.rotY, v.zoom);
	g_UpfCapture.current = i;
	let ticks = 0;
	let announce = () => {
		if (++ticks < 3)
		{
			setTimeout(announce, 0);
			return;
		}
		print(sprintf("upf_capture view %d x %.1f z %.1f rotX %.4f rotY %.4f zoom %.1f\n",
			i, v.x, v.z, v.rotX, v.rotY, v.zoom));
	};
	setTimeout(announce, 0);
}

function upfCapturePoll()
{
	let text = Engine.FileExists("upf/next.txt") ? Engine.ReadFile("upf/next.txt") : "";
	let next = parseInt(text, 10);
	if (next > g_UpfCapture.current)
	{
		if (next > g_UpfCapture.views.length)
		{
			print("upf_capture done\n");
			Engine.Exit();
			return;
		}
		upfCaptureGoTo(next);
	}
	setTimeout(upfCapturePoll, 250);
}

function upfCaptureStart()
{
	let settings = Engine.ReadJSONFile("upf/settings.json");
	let mapSize = GetSimState().mapSize;
	print(sprintf("upf_capture map size %d\n", mapSize));
	g_UpfCapture.views = upfCaptureViews(settings.views, settings.seed, mapSize);
	Engine.SetPaused(true, false);
	Engine.GetGUIObjectByName("session").hidden = true;
	Engine.ConfigDB_CreateValue("user", "silhouettes", "false");
	upfCaptureGoTo(1);
	setTimeout(upfCapturePoll, 250);
}

// Paused from the first tick of the session on, so that every run sees the simulation at
// the same turn (animals wander and units play their idle animations while it runs).
Engine.SetPaused(true, false);
setTimeout(upfCaptureStart, 3000);
