/* reconstruct_dilate_camera.comp: the reconstruct pass on a frame without motion vectors,
 * reading the camera_motion pass's (reconstruct_dilate.glsl). Local size 16 x 16. */
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_samplerless_texture_functions : require

layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;

#define CAMERA_MOTION 1
#include "reconstruct_dilate.glsl"
