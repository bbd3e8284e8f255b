/**
 * The core-file backend: {@link dev.jompd.core.target.core.CoreFileAddressSpace} reads an x86-64
 * Linux core (kernel or gdb gcore) as an {@link dev.jompd.core.target.AddressSpace}.
 */
package dev.jompd.core.target.core;
