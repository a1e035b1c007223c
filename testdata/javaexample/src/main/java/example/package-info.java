/**
 * Example code for fixloop's Java support: statistics with one bug.
 */
package example;
