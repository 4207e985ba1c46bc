/* compose_hud.comp: the compose pass on the GPU with the HUD layer (binding 4) composited:
 * compose.glsl says what it reads, writes and computes. Grid ceil(W / 16) x ceil(H / 16). */
#version 450
#extension GL_GOOGLE_include_directive : require
#define COMPOSE_HUD
#include "compose.glsl"
