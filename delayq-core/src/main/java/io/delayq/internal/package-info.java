/**
 * delayq's implementation: Redis keys, Lua scripts, the claim loop, record encoding. Public only
 * because Java packages require it; nothing here is a supported API and any of it may change in
 * any release.
 */
package io.delayq.internal;
