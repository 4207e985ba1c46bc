/* disocclusion.comp: the disocclusion pass without a reactive mask (disocclusion.glsl).
 * Local size 16 x 16; grid ceil(W / 16) x ceil(H / 16). */
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_samplerless_texture_functions : require

layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;

#include "disocclusion.glsl"
